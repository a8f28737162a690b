/** Helpers for the order integration tests: a partner with a pinned rate, funding, quotes, reads of svc_trading. */
import { Pool } from 'pg';
import { createTestPartner, HttpResult, loadTestStack, PartnerHttpClient, runOps, TestPartner, waitFor } from '@platform/testing';

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
  const pinned = await http.post('/v1/sandbox/rates', { bid: BID, ask: ASK });
  if (pinned.status !== 200) throw new Error(`pinning the rate failed: ${pinned.status}`);
  return { partner, http };
}

export async function fundKes(http: PartnerHttpClient, amount: string): Promise<void> {
  const credit = await http.post('/v1/sandbox/kes-credits', { amount });
  if (credit.status !== 201) throw new Error(`funding failed: ${credit.status} ${JSON.stringify(credit.body)}`);
}

export async function quote(http: PartnerHttpClient, side: 'buy' | 'sell', amount: { kesAmount?: string; usdtAmount?: string }): Promise<Record<string, any>> {
  const result = await http.post('/v1/quotes', { side, ...amount });
  if (result.status !== 201) throw new Error(`quote failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

export async function balances(http: PartnerHttpClient): Promise<Record<string, { available: string; held: string }>> {
  const result = await http.get('/v1/balances');
  return Object.fromEntries((result.body as { currency: string; available: string; held: string }[]).map((b) => [b.currency, b]));
}

export async function orderUntil(http: PartnerHttpClient, orderId: string, status: string, timeoutMs = 15_000): Promise<Record<string, any>> {
  return waitFor(async () => {
    const result = await http.get(`/v1/orders/${orderId}`);
    return result.status === 200 && result.body.status === status ? result.body : undefined;
  }, { timeoutMs, what: `order ${orderId} ${status}` });
}

export function expectRefusal(result: HttpResult, status: number, code: string): void {
  expect({ status: result.status, message: result.body?.message }).toEqual({ status, message: code });
}

export function tradingPool(): Pool {
  return new Pool({ connectionString: loadTestStack().databases.trading, max: 2 });
}

/** The order.* events trading enqueued for an order, oldest first. */
export async function orderEvents(pool: Pool, orderId: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const rows = await pool.query(`SELECT payload FROM outbox WHERE payload->'data'->>'orderId' = $1 ORDER BY created_at, type`, [orderId]);
  return rows.rows.map((row) => ({ type: row.payload.type, data: row.payload.data }));
}

export function ops<T = Record<string, unknown>>(args: string[]): Promise<T> {
  return runOps<T>(args);
}
