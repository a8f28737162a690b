// Proves every code kind renders with its code and variables, every notice kind
// renders without one and refuses one (a notice never carries a code), a
// request lacking what its kind needs is refused, and requests are validated
// field by field.
import { AppError } from '@platform/errors';
import { CODE_MESSAGE_KINDS, NOTICE_MESSAGE_KINDS, parseMessageRequest } from './message';
import { renderMessage } from './templates';

const vars = {
  chain: 'tron',
  asset: 'USDT',
  address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  expiresAt: '2026-11-21T10:00:00.000Z',
  amount: '10.00',
  currency: 'KES',
  destination: '****5678',
  itemCount: '3',
};
const noticeVars = {
  adminName: 'Jane Wanjiru',
  adminEmail: 'jane@example.com',
  changedAt: '2026-11-21T10:00:00.000Z',
  receivesCodesFrom: '2026-11-22T10:00:00.000Z',
};

describe('renderMessage', () => {
  it.each(CODE_MESSAGE_KINDS)('renders %s with the code in the body only', (kind) => {
    const rendered = renderMessage(kind, '042517', vars);
    expect(rendered.body).toContain('042517');
    expect(rendered.subject).not.toContain('042517');
  });

  it.each(NOTICE_MESSAGE_KINDS)('renders %s naming the administrator, with no code, and refuses a code', (kind) => {
    const rendered = renderMessage(kind, undefined, noticeVars);
    expect(rendered.body).toContain('Jane Wanjiru <jane@example.com>');
    expect(rendered.body).toContain(noticeVars.changedAt);
    expect(rendered.body).not.toMatch(/(?<![0-9])[0-9]{6}(?![0-9])/);
    expect(() => renderMessage(kind, '042517', noticeVars)).toThrow('Validation failed on: code');
  });

  it('tells when an added administrator may start receiving codes', () => {
    expect(renderMessage('administrator_added', undefined, noticeVars).body).toContain(
      `codes from ${noticeVars.receivesCodesFrom}`,
    );
  });

  it.each([
    ['transfer_confirmation', 'A transfer of 10.00 KES to ****5678 is waiting for confirmation.'],
    [
      'usdt_send_confirmation',
      'A send of 10.00 USDT to TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t is waiting for confirmation.',
    ],
    ['batch_confirmation', 'A batch of 3 transfers is waiting for confirmation.'],
  ] as const)('renders %s as what waits, the code, its expiry and the footer, line by line', (kind, waiting) => {
    expect(renderMessage(kind, '042517', vars).body.split('\n')).toEqual([
      waiting,
      '',
      'Confirmation code: 042517',
      'It expires at 2026-11-21T10:00:00.000Z.',
      '',
      'If you did not expect this message, do not share the code: tell your security team and the service.',
    ]);
  });

  it('refuses a missing code or variable', () => {
    expect(() => renderMessage('wallet_approval', undefined, vars)).toThrow(AppError);
    expect(() => renderMessage('wallet_approval', '123456', { chain: 'tron' })).toThrow(
      'Validation failed on: variables',
    );
    expect(() => renderMessage('administrator_added', undefined, { adminName: 'Jane' })).toThrow(
      'Validation failed on: variables',
    );
  });
});

describe('parseMessageRequest', () => {
  const valid = {
    idempotencyKey: 'wallet-approval:1',
    partnerId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
    kind: 'wallet_approval',
    recipient: 'jane@example.com',
    subjectType: 'wallet',
    subjectId: '7f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
    code: '123456',
    variables: { chain: 'tron' },
  };

  it('accepts a well-formed request', () => {
    expect(parseMessageRequest(valid).kind).toBe('wallet_approval');
  });

  it('names every bad field', () => {
    expect(() =>
      parseMessageRequest({
        ...valid,
        idempotencyKey: '',
        kind: 'sms',
        recipient: 'jane@example.com\r\nBcc: x@evil.io',
        code: '12345',
        variables: { 'bad name': 'x' },
      }),
    ).toThrow('Validation failed on: idempotencyKey, kind, recipient, code, variables');
  });
});
