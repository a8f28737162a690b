/**
 * Shared tools of the money fault and concurrency specs: a partner set up for
 * buy orders (pinned rate, raised rate limit, funded KES), placing a buy
 * (fresh quote, then the order), waiting for orders to end, and the checks
 * that every order's money is whole: one order per partnerReference, one cap
 * reservation per order (kept when settled, released otherwise; a released one
 * may outlive an order undone because the ledger refused its hold), one hold per
 * order ended exactly once (posted when settled, voided or never placed
 * otherwise), nothing for an order that does not exist, and the ledger
 * reconciled. Reads of the stack's databases are read-only.
 */
import { Pool } from 'pg';
import { createClient } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { ledger } from '@platform/proto';
import { createTestPartner, HttpResult, loadTestStack, PartnerHttpClient, TestPartner, waitFor } from '@platform/testing';

export const BID = '128.0000';
export const ASK = '130.0000';
const RATE_LIMIT_PER_MINUTE = 100_000;
const POOL_CONNECTIONS_MAX = 2;
const TERMINAL_WAIT_MS = 60_000;
const TERMINAL_POLL_MS = 250;
/** Statuses after which an order's money no longer moves (buy orders end settled or rejected). */
const TERMINAL_STATUSES = ['settled', 'rejected', 'expired'];

const logger = createLogger('reliability-money', 'error');

export interface MoneyPartner {
  partner: TestPartner;
  http: PartnerHttpClient;
}

/** The outcome of one attempted create: the HTTP answer, or the transport failure (a killed gateway). */
export type Attempt = HttpResult | { failed: string };

export interface OrderRow {
  orderId: string;
  partnerReference: string;
  status: string;
  kesTotalAmount: string;
  usdtAmount: string;
}

export function moneyPools() {
  const { databases } = loadTestStack();
  return {
    trading: new Pool({ connectionString: databases.trading, max: POOL_CONNECTIONS_MAX }),
    ledger: new Pool({ connectionString: databases.ledger, max: POOL_CONNECTIONS_MAX }),
    webhooks: new Pool({ connectionString: databases['webhook-delivery'], max: POOL_CONNECTIONS_MAX }),
  };
}
export type MoneyPools = ReturnType<typeof moneyPools>;

export async function endPools(pools: MoneyPools | undefined): Promise<void> {
  if (!pools) return;
  await Promise.all(Object.values(pools).map((pool) => pool.end()));
}

export const ledgerClient = () => createClient(ledger.LedgerService, { upstream: 'ledger', address: loadTestStack().grpc.ledger, logger });

/** A fresh partner with a raised rate limit, its rate pinned, and `fundKes` on its KES balance. */
export async function moneyPartner(fundKes: string, extraArgs: string[] = []): Promise<MoneyPartner> {
  const partner = await createTestPartner({ rateLimitPerMinute: RATE_LIMIT_PER_MINUTE, extraArgs });
  const http = new PartnerHttpClient(partner);
  const pinned = await http.post('/v1/sandbox/rates', { bid: BID, ask: ASK });
  if (pinned.status !== 200) throw new Error(`pinning the rate failed: ${pinned.status} ${pinned.text}`);
  const credit = await http.post('/v1/sandbox/kes-credits', { amount: fundKes });
  if (credit.status !== 201) throw new Error(`funding failed: ${credit.status} ${credit.text}`);
  return { partner, http };
}

async function attempt(call: () => Promise<HttpResult>): Promise<Attempt> {
  try {
    return await call();
  } catch (error) {
    return { failed: (error as Error).message };
  }
}

/** A fresh quote (quotes live 1.5 s on the test stack), then the buy; either step may fail while a service is down. */
export async function placeBuy(http: PartnerHttpClient, partnerReference: string, kesAmount: string): Promise<Attempt> {
  const quote = await attempt(() => http.post('/v1/quotes', { side: 'buy', kesAmount }));
  if ('failed' in quote || quote.status !== 201) return quote;
  return attempt(() => http.post('/v1/orders/buy', { quoteId: quote.body.quoteId, partnerReference }));
}

export function statusOf(result: Attempt): string {
  return 'failed' in result ? 'transport failure' : `${result.status} ${result.body?.message ?? ''}`.trim();
}

/** Every order of the partner, from trading's database. */
export async function ordersOf(pools: MoneyPools, partnerId: string): Promise<OrderRow[]> {
  const rows = await pools.trading.query(
    `SELECT order_id, partner_reference, status, kes_total_amount::text AS kes_total, usdt_amount::text AS usdt
       FROM orders WHERE partner_id = $1 ORDER BY created_at`, [partnerId]);
  return rows.rows.map((row) => ({
    orderId: row.order_id, partnerReference: row.partner_reference, status: row.status, kesTotalAmount: row.kes_total, usdtAmount: row.usdt,
  }));
}

/** Waits until none of the partner's orders can still move money; resolves to them. */
export function ordersTerminated(pools: MoneyPools, partnerId: string): Promise<OrderRow[]> {
  return waitFor(async () => {
    const orders = await ordersOf(pools, partnerId);
    return orders.every((order) => TERMINAL_STATUSES.includes(order.status)) ? orders : undefined;
  }, { timeoutMs: TERMINAL_WAIT_MS, intervalMs: TERMINAL_POLL_MS, what: `every order of ${partnerId} to end` });
}

/** Exact decimal strings to integer minor units (money is never a JS number). */
export function minorUnits(amount: string, scale: number): bigint {
  const negative = amount.startsWith('-');
  const [whole, fraction = ''] = amount.replace('-', '').split('.');
  const value = BigInt(whole) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, '0').slice(0, scale) || '0');
  return negative ? -value : value;
}

/**
 * The money of every order is whole (see the file header). Call once no order
 * can move any more (ordersTerminated). `capKes` also asserts the reserved sum
 * stays within the daily cap.
 */
export async function expectOrdersWhole(pools: MoneyPools, p: MoneyPartner, capKes?: string): Promise<OrderRow[]> {
  const orders = await ordersOf(pools, p.partner.partnerId);
  const byId = new Map(orders.map((order) => [order.orderId, order]));
  expect(new Set(orders.map((order) => order.partnerReference)).size).toBe(orders.length);
  const usages = await pools.trading.query(
    'SELECT usage_id, amount_kes::text AS amount, released_at FROM cap_usages WHERE partner_id = $1', [p.partner.partnerId]);
  const problems: string[] = [];
  for (const usage of usages.rows) {
    const order = byId.get(usage.usage_id);
    // A buy whose hold the ledger refused is deleted with its usage released: a released orphan is that undo.
    if (!order) {
      if (usage.released_at === null) problems.push(`unreleased cap usage ${usage.usage_id} names no order`);
    }
    else if ((order.status === 'settled') === (usage.released_at !== null)) problems.push(`order ${order.orderId} ${order.status} with cap usage released_at ${usage.released_at}`);
  }
  const usageIds = new Set(usages.rows.map((usage) => usage.usage_id));
  for (const order of orders) if (!usageIds.has(order.orderId)) problems.push(`order ${order.orderId} has no cap usage`);
  const holds = await pools.ledger.query('SELECT id, status, entry_id FROM holds WHERE account_id = $1', [p.partner.kesAccountId]);
  for (const hold of holds.rows) {
    const order = byId.get(hold.id);
    if (!order) problems.push(`hold ${hold.id} (${hold.status}) names no order`);
    else if (order.status === 'settled' ? hold.status !== 'posted' || !hold.entry_id : hold.status !== 'voided') problems.push(`order ${order.orderId} ${order.status} with hold ${hold.status}`);
  }
  const holdIds = new Set(holds.rows.map((hold) => hold.id));
  for (const order of orders) if (order.status === 'settled' && !holdIds.has(order.orderId)) problems.push(`settled order ${order.orderId} has no hold`);
  expect(problems).toEqual([]);
  if (capKes !== undefined) {
    const reserved = usages.rows.filter((usage) => usage.released_at === null).reduce((sum, usage) => sum + minorUnits(usage.amount, 2), 0n);
    expect(reserved <= minorUnits(capKes, 2)).toBe(true);
  }
  return orders;
}

/** The partner's balances equal the funding less what the settled orders moved; nothing held, nothing negative. */
export async function expectBalancesMatch(p: MoneyPartner, fundedKes: string, orders: OrderRow[]): Promise<void> {
  const result = await p.http.get('/v1/balances');
  expect(result.status).toBe(200);
  const balance = Object.fromEntries((result.body as { currency: string; available: string; held: string }[]).map((b) => [b.currency, b]));
  const settled = orders.filter((order) => order.status === 'settled');
  const spentKes = settled.reduce((sum, order) => sum + minorUnits(order.kesTotalAmount, 2), 0n);
  const boughtUsdt = settled.reduce((sum, order) => sum + minorUnits(order.usdtAmount, 6), 0n);
  expect({ kes: minorUnits(balance.KES.available, 2), kesHeld: minorUnits(balance.KES.held, 2), usdt: minorUnits(balance.USDT.available, 6) })
    .toEqual({ kes: minorUnits(fundedKes, 2) - spentKes, kesHeld: 0n, usdt: boughtUsdt });
  expect(minorUnits(balance.KES.available, 2) >= 0n).toBe(true);
}

/** The ledger's own reconciliation (what `ops ledger check` prints), plus no partner account below zero. */
export async function expectLedgerReconciles(pools: MoneyPools): Promise<void> {
  const report = await ledgerClient().checkLedger({});
  expect(report.checks.filter((check) => !check.ok)).toEqual([]);
  const negative = await pools.ledger.query('SELECT id FROM accounts WHERE partner_id IS NOT NULL AND posted - held < 0');
  expect(negative.rows).toEqual([]);
}
