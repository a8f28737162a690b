/**
 * Proves the operation table keeps the API's rules: the scope each operation
 * needs follows the credential scopes (every GET `read`, the sandbox helpers
 * `sandbox`, writes by family), every path id has its own 404 and the sandbox
 * helpers are sandbox-only; and that the document states what the gateway's
 * zod schemas enforce: each request component, compiled as JSON Schema, takes
 * and refuses the same sample bodies as the zod schema it was derived from.
 */
import Ajv2020 from 'ajv/dist/2020';
import { buildOpenApiDocument } from './document';
import { OPERATION_LIST } from './operations';

const WRITE_SCOPE_BY_PREFIX: ReadonlyArray<readonly [string, string]> = [
  ['/v1/quotes', 'trade'],
  ['/v1/orders', 'trade'],
  ['/v1/transfers', 'payouts'],
  ['/v1/usdt/sends', 'payouts'],
  ['/v1/confirmations', 'payouts'],
  ['/v1/wallets', 'wallets'],
  ['/v1/admins', 'wallets'],
  ['/v1/funding', 'funding'],
  ['/v1/collections', 'collections'],
  ['/v1/webhook-deliveries', 'webhooks'],
];
const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

describe('the operation table', () => {
  it.each(OPERATION_LIST.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    '%s needs the scope of its family',
    (_name, operation) => {
      const expected = under(operation.path, '/v1/sandbox')
        ? 'sandbox'
        : operation.method === 'get'
          ? 'read'
          : WRITE_SCOPE_BY_PREFIX.find(([prefix]) => under(operation.path, prefix))?.[1];
      expect(operation.scope).toBe(expected);
    },
  );

  it('gives every operation with a path id its own 404, listed among its refusals', () => {
    for (const operation of OPERATION_LIST.filter((candidate) => candidate.path.includes('{'))) {
      expect({ operation: operation.operationId, notFound: operation.notFound }).toEqual({
        operation: operation.operationId,
        notFound: expect.stringMatching(/_NOT_FOUND$/),
      });
      expect(operation.errors).toContain(operation.notFound);
    }
  });

  it('serves the sandbox helpers, and only them, in sandbox mode only', () => {
    for (const operation of OPERATION_LIST) {
      expect({ path: operation.path, sandboxOnly: operation.availability === 'sandbox' }).toEqual({
        path: operation.path,
        sandboxOnly: under(operation.path, '/v1/sandbox'),
      });
    }
  });

  it('has one method per path at most once, all under /v1', () => {
    const keys = OPERATION_LIST.map((operation) => `${operation.method} ${operation.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(OPERATION_LIST.every((operation) => operation.path.startsWith('/v1/'))).toBe(true);
  });
});

/** Bodies each schema must take (valid) and must refuse (a field breaks a stated limit). */
const SAMPLES: Record<string, { valid: unknown[]; invalid: unknown[] }> = {
  QuoteRequest: {
    valid: [
      { side: 'buy', kesAmount: '1000' },
      { side: 'sell', usdtAmount: '10.123456' },
    ],
    invalid: [
      { side: 'hold', kesAmount: '1' },
      { side: 'buy', kesAmount: '1.001' },
      { side: 'buy', kesAmount: 10 },
      { side: 'buy', kesAmount: '1', extra: 1 },
      { side: 'buy', kesAmount: '1234567890123456' },
    ],
  },
  BuyOrderRequest: {
    valid: [
      { quoteId: 'not-a-uuid', partnerReference: 'r-1' },
      { quoteId: 'q', partnerReference: 'r', walletId: 'w', paymentRail: 'mobile_money' },
    ],
    invalid: [
      { quoteId: 'q', partnerReference: '' },
      { quoteId: 'q', partnerReference: 'x'.repeat(201) },
      { quoteId: 'q', partnerReference: 'r', paymentRail: 'bank' },
      { quoteId: 'q w', partnerReference: 'r' },
      { quoteId: 'q'.repeat(65), partnerReference: 'r' },
      { quoteId: 'q', partnerReference: 'a\u0007' },
    ],
  },
  AttachTxHashRequest: {
    valid: [{ txHash: 'a'.repeat(64) }, { txHash: `0x${'b'.repeat(64)}` }],
    invalid: [{ txHash: 'A'.repeat(64) }, { txHash: 'a'.repeat(63) }, {}],
  },
  AdminRequest: {
    valid: [
      { email: 'a@example.com', name: 'Ann' },
      { email: 'nobody@elsewhere.io', name: '\u0007' },
    ],
    invalid: [
      { email: 'no-at-sign', name: 'Ann' },
      { email: 'a@example.com', name: '   ' },
      { email: 'a@example.com', name: 'x'.repeat(201) },
    ],
  },
  WalletConfirmRequest: {
    valid: [{ otp: '012345' }],
    invalid: [{ otp: '12345' }, { otp: '1234567' }, { otp: 123456 }],
  },
  TransferBatchRequest: {
    valid: [
      {
        idempotencyKey: 'b',
        items: [
          {
            rail: 'x',
            destination: { accountNumber: '1', accountName: 'n' },
            amount: { currency: 'KES', value: '1.001' },
            idempotencyKey: 'i',
          },
        ],
      },
    ],
    invalid: [
      { idempotencyKey: 'b', items: [] },
      { idempotencyKey: 'b', items: Array.from({ length: 21 }, () => ({})) },
      {
        idempotencyKey: 'b\n',
        items: [
          {
            rail: 'x',
            destination: { accountNumber: '1', accountName: 'n' },
            amount: { currency: 'KES', value: '1' },
            idempotencyKey: 'i',
          },
        ],
      },
    ],
  },
  CollectionRequest: {
    valid: [{ currency: 'USD', partnerReference: 'a.b:c-d_e', payerLabel: 'Payer', expectedAmount: '10.5' }],
    invalid: [
      { currency: 'EUR', partnerReference: 'a', payerLabel: 'p' },
      { currency: 'USD', partnerReference: 'a b', payerLabel: 'p' },
      { currency: 'USD', partnerReference: 'a', payerLabel: ' \t ' },
      { currency: 'USD', partnerReference: 'a', payerLabel: 'p\u0000' },
    ],
  },
  SandboxRateRequest: {
    valid: [{ bid: '129', ask: '130.1234' }],
    invalid: [
      { bid: '129.12345', ask: '130' },
      { bid: '129', ask: '130', halted: 'yes' },
    ],
  },
};

describe('request components in the document', () => {
  const document = buildOpenApiDocument() as { components: { schemas: Record<string, Record<string, unknown>> } };
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const bodies = new Map(
    OPERATION_LIST.flatMap((operation) =>
      operation.request ? [[operation.request.name, operation.request] as const] : [],
    ),
  );

  it.each(Object.keys(SAMPLES))("%s takes and refuses what the gateway's schema does", (name) => {
    const request = bodies.get(name)!;
    const validate = ajv.compile({ $ref: `#/components/schemas/${name}`, components: document.components });
    const zodTakes = (body: unknown) =>
      request.schema.safeParse(body).success &&
      (request.crossFieldCheck?.(body as Record<string, unknown>) ?? []).length === 0;
    for (const body of SAMPLES[name].valid)
      expect({ body, document: validate(body), gateway: zodTakes(body) }).toEqual({
        body,
        document: true,
        gateway: true,
      });
    for (const body of SAMPLES[name].invalid)
      expect({ body, document: validate(body), gateway: zodTakes(body) }).toEqual({
        body,
        document: false,
        gateway: false,
      });
  });
});
