// Proves every message kind renders with its code and variables, refuses a
// request that lacks them, and that requests are validated field by field.
import { AppError } from '@platform/errors';
import { MESSAGE_KINDS, parseMessageRequest } from './message';
import { renderMessage } from './templates';

const vars = { chain: 'tron', asset: 'USDT', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', expiresAt: '2026-11-21T10:00:00.000Z', amount: '10.00', currency: 'KES', destination: '****5678', itemCount: '3' };

describe('renderMessage', () => {
  it.each(MESSAGE_KINDS)('renders %s with the code in the body only', (kind) => {
    const rendered = renderMessage(kind, '042517', vars);
    expect(rendered.body).toContain('042517');
    expect(rendered.subject).not.toContain('042517');
  });

  it('refuses a missing code or variable', () => {
    expect(() => renderMessage('wallet_approval', undefined, vars)).toThrow(AppError);
    expect(() => renderMessage('wallet_approval', '123456', { chain: 'tron' })).toThrow('Validation failed on: variables');
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
    expect(() => parseMessageRequest({
      ...valid, idempotencyKey: '', kind: 'sms', recipient: 'jane@example.com\r\nBcc: x@evil.io', code: '12345', variables: { 'bad name': 'x' },
    })).toThrow('Validation failed on: idempotencyKey, kind, recipient, code, variables');
  });
});
