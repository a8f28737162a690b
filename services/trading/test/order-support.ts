/**
 * Helpers for the order integration tests: a partner with a pinned rate, funding, quotes, reads of svc_trading.
 * Set-up and reads go through the SDK's typed methods (a refusal throws PartnerApiError); the tests themselves
 * keep raw requests where they assert statuses and envelopes.
 */
import { Pool } from 'pg';
import type { QuoteRequest } from '@platform/sdk';
import {
  createTestPartner,
  HttpResult,
  loadTestStack,
  PartnerHttpClient,
  runOps,
  TestPartner,
  waitFor,
} from '@platform/testing';

export const BID = '128.0000';
export const ASK = '130.0000';

export interface OrderPartner {
  partner: TestPartner;
  http: PartnerHttpClient;
}

/** A fresh partner with its sandbox rate pinned (buys at 130.0000, sells at 128.0000). */
export async function orderPartner(extraArgs: string[] = []): Promise<OrderPartner> {
  const partner = await createTestPartner({ extraArgs, rateLimitPerMinute: 1000 });
  const http = new PartnerHttpClient(partner);
  await http.sdk.sandbox.setRate({ bid: BID, ask: ASK });
  return { partner, http };
}

export async function fundKes(http: PartnerHttpClient, amount: string): Promise<void> {
  await http.sdk.sandbox.kesCredit({ amount });
}

export async function quote(
  http: PartnerHttpClient,
  side: 'buy' | 'sell',
  amount: { kesAmount?: string; usdtAmount?: string },
): Promise<Record<string, any>> {
  return http.sdk.quotes.create({ side, ...amount } as QuoteRequest);
}

export async function balances(http: PartnerHttpClient): Promise<Record<string, { available: string; held: string }>> {
  return Object.fromEntries((await http.sdk.balances.list()).map((balance) => [balance.currency, balance]));
}

export async function orderUntil(
  http: PartnerHttpClient,
  orderId: string,
  status: string,
  timeoutMs = 15_000,
): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const order = await http.sdk.orders.get(orderId);
      return order.status === status ? order : undefined;
    },
    { timeoutMs, what: `order ${orderId} ${status}` },
  );
}

export function expectRefusal(result: HttpResult, status: number, code: string): void {
  expect({ status: result.status, message: result.body?.message }).toEqual({ status, message: code });
}

/** The pools a spec reads trading's and the ledger's databases through, set in beforeAll. */
export interface OrderSpecPools {
  trading: Pool;
  ledger: Pool;
}

/** Registers a spec's hooks that open a pool on svc_trading and one on svc_ledger before all and end both after all. */
export function useOrderSpecPools(): OrderSpecPools {
  const pools = {} as OrderSpecPools;
  beforeAll(() => {
    pools.trading = new Pool({ connectionString: loadTestStack().databases.trading, max: 2 });
    pools.ledger = new Pool({ connectionString: loadTestStack().databases.ledger, max: 2 });
  });
  afterAll(async () => {
    await Promise.all([pools.trading?.end(), pools.ledger?.end()]);
  });
  return pools;
}

/** The order a partner made under `partnerReference` (read in trading's database: a refused create answers no id). */
export async function orderByReference(
  pool: Pool,
  partnerId: string,
  partnerReference: string,
): Promise<{ order_id: string; status: string }> {
  const { rows } = await pool.query(
    'SELECT order_id, status FROM orders WHERE partner_id = $1 AND partner_reference = $2',
    [partnerId, partnerReference],
  );
  return rows[0];
}

/** The order.* events trading enqueued for an order, oldest first. */
export async function orderEvents(
  pool: Pool,
  orderId: string,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const rows = await pool.query(
    `SELECT payload FROM outbox WHERE payload->'data'->>'orderId' = $1 ORDER BY created_at, type`,
    [orderId],
  );
  return rows.rows.map((row) => ({ type: row.payload.type, data: row.payload.data }));
}

export function ops<T = Record<string, unknown>>(args: string[]): Promise<T> {
  return runOps<T>(args);
}
