/** The twelve event types, as OpenAPI `webhooks` (what the service POSTs to the partner's endpoint). */
import { ORDER_STATUSES } from './contract/statuses';
import { code as codeOf, nullable, ref, text, word as wordOf } from './schemas';

type Schema = Record<string, unknown>;
const word = wordOf();
const code = codeOf();
const str = text(200);

const ORDER_DATA: Schema = {
  type: 'object',
  required: [
    'orderId',
    'partnerReference',
    'side',
    'status',
    'kesAmount',
    'feeKesAmount',
    'kesTotalAmount',
    'usdtAmount',
    'rate',
  ],
  properties: {
    orderId: ref('Uuid'),
    partnerReference: str,
    side: { type: 'string', enum: ['buy', 'sell'] },
    status: { type: 'string', enum: [...ORDER_STATUSES] },
    kesAmount: ref('KesAmount'),
    feeKesAmount: ref('KesAmount'),
    kesTotalAmount: ref('KesAmount'),
    usdtAmount: ref('UsdtAmount'),
    rate: ref('Rate'),
  },
};
const TRANSFER_DATA: Schema = {
  type: 'object',
  required: [
    'transferId',
    'partnerReference',
    'rail',
    'status',
    'amount',
    'fee',
    'destinationAccountNumber',
    'failureCode',
    'settledAt',
  ],
  properties: {
    transferId: ref('Uuid'),
    partnerReference: str,
    rail: word,
    status: { type: 'string', enum: ['settled', 'failed'] },
    amount: ref('Money'),
    fee: ref('Money'),
    destinationAccountNumber: { type: 'string', maxLength: 8, pattern: '^\\*{4}[^\\s]{1,4}$' },
    failureCode: nullable(code),
    settledAt: nullable(ref('Timestamp')),
  },
};
const SEND_DATA: Schema = {
  type: 'object',
  required: ['sendId', 'partnerReference', 'status', 'amount', 'destinationWalletId', 'failureReason'],
  properties: {
    sendId: ref('Uuid'),
    partnerReference: str,
    status: { type: 'string', enum: ['settled', 'failed'] },
    amount: ref('Money'),
    destinationWalletId: ref('Uuid'),
    failureReason: nullable(code),
  },
};

export const WEBHOOK_EVENTS: Array<{ type: string; summary: string; data: Schema }> = [
  { type: 'order.funds_confirmed', summary: 'Money arrived and was attributed to the order', data: ORDER_DATA },
  { type: 'order.settled', summary: 'The order completed (terminal)', data: ORDER_DATA },
  { type: 'order.rejected', summary: 'The order will not complete; read kesDebit.status (terminal)', data: ORDER_DATA },
  { type: 'order.expired', summary: 'The order was never funded and its window closed (terminal)', data: ORDER_DATA },
  {
    type: 'credit.received',
    summary: 'Money landed in a KES account and cleared',
    data: {
      type: 'object',
      required: ['transactionId', 'accountId', 'amount', 'rail', 'reference', 'receivedAt'],
      properties: {
        transactionId: ref('Uuid'),
        accountId: ref('Uuid'),
        amount: ref('Money'),
        rail: word,
        reference: nullable(text(64)),
        receivedAt: ref('Timestamp'),
      },
    },
  },
  { type: 'transfer.settled', summary: 'The bank completed the transfer', data: TRANSFER_DATA },
  { type: 'transfer.failed', summary: 'The bank refused the transfer; value never moved', data: TRANSFER_DATA },
  { type: 'usdt_send.settled', summary: 'The USDT send completed on chain', data: SEND_DATA },
  { type: 'usdt_send.failed', summary: 'The USDT send did not go out; balance unchanged', data: SEND_DATA },
  {
    type: 'usdt_credit.received',
    summary: 'USDT arrived at the deposit address, not tied to an order',
    data: {
      type: 'object',
      required: ['activityId', 'amount', 'receivedAt'],
      properties: { activityId: ref('Uuid'), amount: ref('Money'), receivedAt: ref('Timestamp') },
    },
  },
  {
    type: 'collection.received',
    summary: 'A collection contribution was credited, net of fee',
    data: {
      type: 'object',
      required: ['collectionId', 'reference', 'gross', 'fee', 'net', 'currency', 'senderName', 'treasuryCreditTxId'],
      properties: {
        collectionId: ref('Uuid'),
        reference: { type: 'string', maxLength: 11, pattern: '^[0-9A-HJKMNP-TV-Y]{11}$' },
        gross: ref('UsdAmount'),
        fee: ref('UsdAmount'),
        net: ref('UsdAmount'),
        currency: { type: 'string', enum: ['USD'] },
        senderName: nullable(str),
        treasuryCreditTxId: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
      },
    },
  },
  {
    type: 'confirmation.expired',
    summary: 'A code window passed before confirmation; the subject reads expired',
    data: {
      type: 'object',
      required: ['confirmationId', 'subjectType', 'subjectId', 'expiredAt'],
      properties: {
        confirmationId: ref('Uuid'),
        subjectType: { type: 'string', enum: ['transfer', 'usdt_send', 'transfer_batch'] },
        subjectId: ref('Uuid'),
        expiredAt: ref('Timestamp'),
      },
    },
  },
];

const DELIVERY_HEADERS = [
  {
    name: 'X-Service-Signature',
    description:
      '`v1=<lowercase hex HMAC-SHA256(secret, "<timestamp>.<delivery id>.<raw body>")>`; during a secret rotation two values, comma separated (`v1=<new>,v1=<old>`): accept if any matches.',
    schema: { type: 'string', maxLength: 1_000, pattern: '^v1=[0-9a-f]{64}(,v1=[0-9a-f]{64})*$' },
  },
  {
    name: 'X-Service-Timestamp',
    description: 'Unix milliseconds of this attempt (each retry is signed afresh). Refuse one older than 5 minutes.',
    schema: { type: 'string', maxLength: 13, pattern: '^[0-9]{13}$' },
  },
  {
    name: 'X-Service-Delivery',
    description: 'The delivery id, identical on every attempt and replay: dedupe on it.',
    schema: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9._:-]{1,64}$' },
  },
  {
    name: 'X-Service-Event',
    description: 'The event type, a hint only; `type` in the body is authoritative.',
    schema: { type: 'string', maxLength: 64, pattern: '^[a-z_]{1,32}\\.[a-z_]{1,32}$' },
  },
];

export function webhookPaths(): Record<string, unknown> {
  const entries = WEBHOOK_EVENTS.map((event) => [
    event.type,
    {
      post: {
        operationId: `webhook_${event.type.replace('.', '_')}`,
        summary: event.summary,
        description:
          `${event.summary}. Verify the signature on the raw body, dedupe on X-Service-Delivery, and answer any 2xx within 10 s; ` +
          'ignore unknown fields and event types.',
        tags: ['Webhooks'],
        security: [],
        parameters: DELIVERY_HEADERS.map((header) => ({ in: 'header', required: true, ...header })),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['id', 'type', 'createdAt', 'data'],
                properties: {
                  id: ref('Uuid'),
                  type: { type: 'string', const: event.type },
                  createdAt: ref('Timestamp'),
                  data: event.data,
                },
              },
            },
          },
        },
        responses: {
          200: { description: 'Any 2xx acknowledges the delivery (answer within 10 s; redirects count as failures)' },
          400: {
            description: 'Refused (bad signature or stale timestamp): the delivery is retried, then dead-lettered',
          },
        },
      },
    },
  ]);
  return Object.fromEntries(entries);
}
