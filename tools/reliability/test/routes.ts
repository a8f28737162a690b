/**
 * Every route the gateway serves, as data: the fuzzer, the cross-partner spec
 * and the timing spec read this table. A new route is one entry here (orders,
 * transfers, sends and collections plug in as they land).
 *
 * Field kinds say what a valid value looks like, so the fuzzer can produce
 * values that are certainly NOT valid for that field (a hostile body must
 * never be accepted: the fuzz asserts nothing is written).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { tronAddressFromAccountId } from '@platform/chain';

export type FieldKind =
  | 'kes'
  | 'usdt'
  | 'usd'
  | 'rate' // decimal strings of scale 2, 6, 2, 4
  | 'side' // 'buy' | 'sell'
  | 'literal' // one fixed string ('tron', 'USDT', 'USD')
  | 'uuid' // a lowercase UUID (quote, payout destination)
  | 'phone' // a Kenyan mobile number
  | 'email'
  | 'name'
  | 'label'
  | 'reference'
  | 'otp'
  | 'txHash'
  | 'tronAddress'
  | 'boolean'
  | 'rail'
  | 'idempotencyKey' // a transfer's rail; a transfer's or send's idempotencyKey
  | 'object'; // a nested JSON object or array (any string or number is invalid)

export interface BodyField {
  kind: FieldKind;
  /** A valid value; undefined for an optional field the valid body leaves out. */
  valid: () => unknown;
}

export interface RouteUnderTest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path, `:id` standing for a resource id. */
  path: string;
  /** Fields of a valid JSON body, for routes that take one. */
  body?: Record<string, BodyField>;
  /** The 404 message for an id naming nothing (routes with `:id`). */
  notFound?: string;
  /** Statuses a hostile request may get besides 400/404/413 (none today). */
  alsoAllowed?: number[];
  /** The kind of resource `:id` names (see RESOURCES), for the cross-partner spec. */
  resource?: ResourceKind;
}

export type ResourceKind =
  | 'admin'
  | 'wallet'
  | 'order'
  | 'collection'
  | 'push'
  | 'transfer'
  | 'confirmation'
  | 'usdt_send'
  | 'transfer_batch'
  | 'account'
  | 'webhook_delivery';

export function newTronAddress(): string {
  return tronAddressFromAccountId(randomBytes(20));
}

const field = (kind: FieldKind, valid: () => unknown): BodyField => ({ kind, valid });
const optional = (kind: FieldKind): BodyField => ({ kind, valid: () => undefined });

export const ROUTES: RouteUnderTest[] = [
  { method: 'GET', path: '/v1/health' },
  { method: 'GET', path: '/v1/balances' },
  { method: 'GET', path: '/v1/balances/:id/transactions', notFound: 'ACCOUNT_NOT_FOUND', resource: 'account' },
  { method: 'GET', path: '/v1/funding' },
  { method: 'GET', path: '/v1/payout-destinations' },
  { method: 'GET', path: '/v1/admins' },
  { method: 'GET', path: '/v1/wallets' },
  { method: 'GET', path: '/v1/sandbox/outbox' },
  {
    method: 'POST',
    path: '/v1/quotes',
    body: { side: field('side', () => 'buy'), kesAmount: field('kes', () => '1000.00') },
  },
  {
    method: 'POST',
    path: '/v1/admins',
    body: { email: field('email', () => 'fuzz.admin@example.com'), name: field('name', () => 'Fuzz Admin') },
  },
  { method: 'DELETE', path: '/v1/admins/:id', notFound: 'ADMIN_NOT_FOUND', resource: 'admin' },
  {
    method: 'POST',
    path: '/v1/wallets',
    body: {
      chain: field('literal', () => 'tron'),
      asset: field('literal', () => 'USDT'),
      address: field('tronAddress', newTronAddress),
      label: optional('label'),
    },
  },
  {
    method: 'POST',
    path: '/v1/wallets/:id/confirm',
    body: { otp: field('otp', () => '123456') },
    notFound: 'WALLET_NOT_FOUND',
    resource: 'wallet',
  },
  { method: 'DELETE', path: '/v1/wallets/:id', notFound: 'WALLET_NOT_FOUND', resource: 'wallet' },
  {
    method: 'POST',
    path: '/v1/sandbox/rates',
    body: { bid: field('rate', () => '129.5000'), ask: field('rate', () => '130.5000'), halted: optional('boolean') },
  },
  {
    method: 'POST',
    path: '/v1/sandbox/kes-credits',
    body: { amount: field('kes', () => '100.00'), reference: optional('reference') },
  },
  {
    method: 'POST',
    path: '/v1/sandbox/usdt-deposits',
    body: {
      txHash: field('txHash', () => randomBytes(32).toString('hex')),
      usdtAmount: field('usdt', () => '1.000000'),
    },
  },
  { method: 'POST', path: '/v1/sandbox/wallets/:id/approve', notFound: 'WALLET_NOT_FOUND', resource: 'wallet' },
  {
    method: 'POST',
    path: '/v1/orders/buy',
    body: {
      quoteId: field('uuid', randomUUID),
      partnerReference: field('reference', randomUUID),
      expectedUsdtAmount: optional('usdt'),
    },
  },
  {
    method: 'POST',
    path: '/v1/orders/sell',
    body: {
      quoteId: field('uuid', randomUUID),
      partnerReference: field('reference', randomUUID),
      payoutAccountId: field('uuid', randomUUID),
    },
  },
  { method: 'GET', path: '/v1/orders' },
  { method: 'GET', path: '/v1/orders/:id', notFound: 'ORDER_NOT_FOUND', resource: 'order' },
  {
    method: 'PATCH',
    path: '/v1/orders/:id',
    body: { txHash: field('txHash', () => randomBytes(32).toString('hex')) },
    notFound: 'ORDER_NOT_FOUND',
    resource: 'order',
  },
  { method: 'GET', path: '/v1/collections' },
  {
    method: 'POST',
    path: '/v1/collections',
    body: {
      currency: field('literal', () => 'USD'),
      partnerReference: field('reference', randomUUID),
      payerLabel: field('name', () => 'Fuzz Payer'),
      expectedAmount: optional('usd'),
    },
  },
  { method: 'GET', path: '/v1/collections/:id', notFound: 'COLLECTION_NOT_FOUND', resource: 'collection' },
  {
    method: 'POST',
    path: '/v1/sandbox/collections/:id/deposits',
    body: { amount: field('usd', () => '10.00'), senderName: optional('name') },
    notFound: 'COLLECTION_NOT_FOUND',
    resource: 'collection',
  },
  {
    method: 'POST',
    path: '/v1/sandbox/collections/:id/expire',
    notFound: 'COLLECTION_NOT_FOUND',
    resource: 'collection',
  },
  { method: 'GET', path: '/v1/funding/mobile-money-push' },
  {
    method: 'POST',
    path: '/v1/funding/mobile-money-push',
    body: { phone: field('phone', () => '0712345678'), amount: field('kes', () => '100.00') },
  },
  {
    method: 'POST',
    path: '/v1/sandbox/mobile-money-pushes/:id/approve',
    notFound: 'MOBILE_MONEY_PUSH_NOT_FOUND',
    resource: 'push',
  },
  {
    method: 'POST',
    path: '/v1/sandbox/mobile-money-pushes/:id/decline',
    notFound: 'MOBILE_MONEY_PUSH_NOT_FOUND',
    resource: 'push',
  },
  {
    method: 'POST',
    path: '/v1/transfers',
    body: {
      rail: field('rail', () => 'mobile_money'),
      destination: field('object', () => ({ accountNumber: '254712345678', accountName: 'Fuzz Payee' })),
      amount: field('object', () => ({ currency: 'KES', value: '10.00' })),
      idempotencyKey: field('idempotencyKey', () => `fuzz-${randomBytes(8).toString('hex')}`),
    },
  },
  { method: 'GET', path: '/v1/transfers' },
  { method: 'GET', path: '/v1/transfers/:id', notFound: 'TRANSFER_NOT_FOUND', resource: 'transfer' },
  {
    method: 'POST',
    path: '/v1/transfers/batch',
    body: {
      idempotencyKey: field('idempotencyKey', () => `fuzz-${randomBytes(8).toString('hex')}`),
      items: field('object', () => [
        {
          rail: 'mobile_money',
          destination: { accountNumber: '254712345678', accountName: 'Fuzz Payee' },
          amount: { currency: 'KES', value: '10.00' },
          idempotencyKey: `fuzz-${randomBytes(8).toString('hex')}`,
        },
      ]),
    },
  },
  { method: 'GET', path: '/v1/transfers/batch' },
  { method: 'GET', path: '/v1/transfers/batch/:id', notFound: 'BATCH_NOT_FOUND', resource: 'transfer_batch' },
  {
    method: 'POST',
    path: '/v1/confirmations/:id',
    body: { code: field('otp', () => '123456') },
    notFound: 'CONFIRMATION_NOT_FOUND',
    resource: 'confirmation',
  },
  {
    method: 'POST',
    path: '/v1/confirmations/:id/resend',
    notFound: 'CONFIRMATION_NOT_FOUND',
    resource: 'confirmation',
  },
  {
    method: 'POST',
    path: '/v1/usdt/sends',
    body: {
      // A wallet id is a UUID; every hostile 'reference' value fails that too.
      destinationWalletId: field('reference', () => '00000000-0000-4000-8000-000000000000'),
      usdtAmount: field('usdt', () => '5.000000'),
      idempotencyKey: field('idempotencyKey', () => `fuzz-${randomBytes(8).toString('hex')}`),
    },
  },
  { method: 'GET', path: '/v1/usdt/sends' },
  { method: 'GET', path: '/v1/usdt/sends/:id', notFound: 'SEND_NOT_FOUND', resource: 'usdt_send' },
  { method: 'GET', path: '/v1/events' },
  { method: 'GET', path: '/v1/webhook-deliveries' },
  {
    method: 'POST',
    path: '/v1/webhook-deliveries/:id/retry',
    notFound: 'DELIVERY_NOT_FOUND',
    resource: 'webhook_delivery',
  },
];

/** The routes that name a resource by id. */
export const ID_ROUTES = ROUTES.filter((route) => route.path.includes(':id'));

export function withId(path: string, id: string): string {
  return path.replace(':id', id);
}

export function validBody(route: RouteUnderTest): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(route.body ?? {})) {
    const value = spec.valid();
    if (value !== undefined) body[name] = value;
  }
  return body;
}
