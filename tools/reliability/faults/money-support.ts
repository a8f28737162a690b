/**
 * Shared tools of the money fault and concurrency specs: a partner set up for
 * buy orders (pinned rate, raised rate limit, funded KES), placing a buy
 * (fresh quote, then the order), waiting for orders to end, and the checks
 * that every order's money is whole: one order per partnerReference, one cap
 * reservation per order (kept when settled, released otherwise; a released one
 * may outlive an order undone because the ledger refused its hold), one hold per
 * order ended exactly once (posted when settled, voided or never placed
 * otherwise), nothing for an order that does not exist, and the ledger
 * reconciled. The same for KES transfers and USDT sends (payingPartner,
 * createAndConfirm, subjectsTerminated, expectSubjectsWhole,
 * expectSubjectBalancesMatch). Reads of the stack's databases are read-only.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { tronAddressFromAccountId } from '@platform/chain';
import { createLogger } from '@platform/logger';
import { ledger } from '@platform/proto';
import {
  createTestPartner,
  HttpResult,
  loadTestStack,
  PartnerHttpClient,
  sandboxCode,
  TestPartner,
  waitFor,
  clientAs,
} from '@platform/testing';

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
    payouts: new Pool({ connectionString: databases.payouts, max: POOL_CONNECTIONS_MAX }),
    collections: new Pool({ connectionString: databases.collections, max: POOL_CONNECTIONS_MAX }),
    walletRegistry: new Pool({ connectionString: databases['wallet-registry'], max: POOL_CONNECTIONS_MAX }),
  };
}
export type MoneyPools = ReturnType<typeof moneyPools>;

export async function endPools(pools: MoneyPools | undefined): Promise<void> {
  if (!pools) return;
  await Promise.all(Object.values(pools).map((pool) => pool.end()));
}

// The ledger's reconciliation is an operator RPC.
export const ledgerClient = () => clientAs('ops', ledger.LedgerService, { upstream: 'ledger', logger });

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

/** The answer of `call`, or its transport failure. */
export async function attempt(call: () => Promise<HttpResult>): Promise<Attempt> {
  try {
    return await call();
  } catch (error) {
    return { failed: (error as Error).message };
  }
}

/** A fresh quote (quotes live 5 s on the test stack), then the buy; either step may fail while a service is down. */
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
       FROM orders WHERE partner_id = $1 ORDER BY created_at`,
    [partnerId],
  );
  return rows.rows.map((row) => ({
    orderId: row.order_id,
    partnerReference: row.partner_reference,
    status: row.status,
    kesTotalAmount: row.kes_total,
    usdtAmount: row.usdt,
  }));
}

/** Waits until none of the partner's orders can still move money; resolves to them. */
export function ordersTerminated(pools: MoneyPools, partnerId: string): Promise<OrderRow[]> {
  return waitFor(
    async () => {
      const orders = await ordersOf(pools, partnerId);
      return orders.every((order) => TERMINAL_STATUSES.includes(order.status)) ? orders : undefined;
    },
    { timeoutMs: TERMINAL_WAIT_MS, intervalMs: TERMINAL_POLL_MS, what: `every order of ${partnerId} to end` },
  );
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
 * stays within the daily cap and equals what trading's cap window counts.
 */
export async function expectOrdersWhole(pools: MoneyPools, p: MoneyPartner, capKes?: string): Promise<OrderRow[]> {
  const orders = await ordersOf(pools, p.partner.partnerId);
  const byId = new Map(orders.map((order) => [order.orderId, order]));
  expect(new Set(orders.map((order) => order.partnerReference)).size).toBe(orders.length);
  const usages = await pools.trading.query(
    'SELECT usage_id, amount_kes::text AS amount, released_at FROM cap_usages WHERE partner_id = $1',
    [p.partner.partnerId],
  );
  const problems: string[] = [];
  for (const usage of usages.rows) {
    const order = byId.get(usage.usage_id);
    // A buy whose hold the ledger refused is deleted with its usage released: a released orphan is that undo.
    if (!order) {
      if (usage.released_at === null) problems.push(`unreleased cap usage ${usage.usage_id} names no order`);
    } else if ((order.status === 'settled') === (usage.released_at !== null))
      problems.push(`order ${order.orderId} ${order.status} with cap usage released_at ${usage.released_at}`);
  }
  const usageIds = new Set(usages.rows.map((usage) => usage.usage_id));
  for (const order of orders)
    if (!usageIds.has(order.orderId)) problems.push(`order ${order.orderId} has no cap usage`);
  const holds = await pools.ledger.query('SELECT id, status, entry_id FROM holds WHERE account_id = $1', [
    p.partner.kesAccountId,
  ]);
  for (const hold of holds.rows) {
    const order = byId.get(hold.id);
    if (!order) problems.push(`hold ${hold.id} (${hold.status}) names no order`);
    else if (order.status === 'settled' ? hold.status !== 'posted' || !hold.entry_id : hold.status !== 'voided')
      problems.push(`order ${order.orderId} ${order.status} with hold ${hold.status}`);
  }
  const holdIds = new Set(holds.rows.map((hold) => hold.id));
  for (const order of orders)
    if (order.status === 'settled' && !holdIds.has(order.orderId))
      problems.push(`settled order ${order.orderId} has no hold`);
  expect(problems).toEqual([]);
  if (capKes !== undefined) {
    const reserved = usages.rows
      .filter((usage) => usage.released_at === null)
      .reduce((sum, usage) => sum + minorUnits(usage.amount, 2), 0n);
    expect(reserved <= minorUnits(capKes, 2)).toBe(true);
    expect(await capWindowKes(pools, p.partner.partnerId)).toBe(reserved);
  }
  return orders;
}

/** The partner's balances equal the funding less what the settled orders moved; nothing held, nothing negative. */
export async function expectBalancesMatch(p: MoneyPartner, fundedKes: string, orders: OrderRow[]): Promise<void> {
  const result = await p.http.get('/v1/balances');
  expect(result.status).toBe(200);
  const balance = Object.fromEntries(
    (result.body as { currency: string; available: string; held: string }[]).map((b) => [b.currency, b]),
  );
  const settled = orders.filter((order) => order.status === 'settled');
  const spentKes = settled.reduce((sum, order) => sum + minorUnits(order.kesTotalAmount, 2), 0n);
  const boughtUsdt = settled.reduce((sum, order) => sum + minorUnits(order.usdtAmount, 6), 0n);
  expect({
    kes: minorUnits(balance.KES.available, 2),
    kesHeld: minorUnits(balance.KES.held, 2),
    usdt: minorUnits(balance.USDT.available, 6),
  }).toEqual({ kes: minorUnits(fundedKes, 2) - spentKes, kesHeld: 0n, usdt: boughtUsdt });
  expect(minorUnits(balance.KES.available, 2) >= 0n).toBe(true);
}

/** The ledger's own reconciliation (what `ops ledger check` prints), plus no partner account below zero. */
export async function expectLedgerReconciles(pools: MoneyPools): Promise<void> {
  const report = await ledgerClient().checkLedger({});
  expect(report.checks.filter((check) => !check.ok)).toEqual([]);
  const negative = await pools.ledger.query(
    'SELECT id FROM accounts WHERE partner_id IS NOT NULL AND posted - held < 0',
  );
  expect(negative.rows).toEqual([]);
}

// ------------------------------------------------------------------ transfers and USDT sends

/** Statuses after which a transfer's or a send's money no longer moves. */
const PAYOUT_TERMINAL_STATUSES = ['settled', 'failed', 'expired'];
/** A deposit held because trading did not answer is credited after 60 s; plus a margin. */
const USDT_CREDIT_WAIT_MS = 75_000;

/** A money movement of any kind, as its own service stored it. */
export interface Subject {
  id: string;
  kind: 'order' | 'transfer' | 'usdt_send';
  status: string;
  /** What a settled subject took from the KES balance (orders: total; transfers: amount + fee). */
  kesDebit: string;
  /** What a settled subject added to (orders) or took from (sends) the USDT balance. */
  usdtCredit: string;
  usdtDebit: string;
}

export type PayingPartner = MoneyPartner & { walletId: string };

/** A fresh partner with a raised rate limit, the given daily cap and an administrator (codes go to them). */
export async function adminPartner(capKes: string): Promise<MoneyPartner> {
  const domain = `inv-${randomUUID().slice(0, 8)}.example.com`;
  const partner = await createTestPartner({
    adminDomain: domain,
    rateLimitPerMinute: RATE_LIMIT_PER_MINUTE,
    extraArgs: ['--daily-cap-kes', capKes, '--per-order-cap-kes', capKes],
  });
  const http = new PartnerHttpClient(partner);
  await expectStatus(
    http.post('/v1/admins', { email: `treasurer@${domain}`, name: 'Treasurer' }),
    201,
    'the administrator',
  );
  return { partner, http };
}

/** A partner for every flow: an administrator, funded KES and USDT, a pinned rate, an active wallet. */
export async function payingPartner(fundKes: string, fundUsdt: string, capKes: string): Promise<PayingPartner> {
  const { partner, http } = await adminPartner(capKes);
  await expectStatus(http.post('/v1/sandbox/rates', { bid: BID, ask: ASK }), 200, 'pinning the rate');
  await expectStatus(http.post('/v1/sandbox/kes-credits', { amount: fundKes }), 201, 'KES funding');
  await expectStatus(
    http.post('/v1/sandbox/usdt-deposits', { txHash: randomBytes(32).toString('hex'), usdtAmount: fundUsdt }),
    201,
    'USDT funding',
  );
  await usdtCredited(http, fundUsdt);
  const registered = await expectStatus(
    http.post('/v1/wallets', { chain: 'tron', asset: 'USDT', address: tronAddressFromAccountId(randomBytes(20)) }),
    201,
    'the wallet',
  );
  const walletId = registered.body.walletId as string;
  await expectStatus(
    http.post(`/v1/wallets/${walletId}/confirm`, { otp: await codeFor(http, walletId) }),
    200,
    'the wallet confirmation',
  );
  await expectStatus(http.post(`/v1/sandbox/wallets/${walletId}/approve`), 200, 'the wallet approval');
  return { partner, http, walletId };
}

/**
 * Waits for the USDT funding to reach the balance: the ledger offers each deposit to
 * trading (2 s deadline) and, when a loaded trading does not answer in time, holds it
 * in suspense for DEPOSIT_HOLD_WHEN_TRADING_UNAVAILABLE_MS (60 s) before crediting it.
 */
function usdtCredited(http: PartnerHttpClient, fundUsdt: string): Promise<true> {
  return waitFor(
    async () => {
      const balances = await http.get('/v1/balances');
      const usdt = (balances.body as Array<{ currency: string; available: string }>).find(
        (balance) => balance.currency === 'USDT',
      );
      return usdt && minorUnits(usdt.available, 6) === minorUnits(fundUsdt, 6) ? true : undefined;
    },
    { timeoutMs: USDT_CREDIT_WAIT_MS, intervalMs: TERMINAL_POLL_MS, what: `${fundUsdt} USDT on the balance` },
  );
}

async function expectStatus(call: Promise<HttpResult>, status: number, what: string): Promise<HttpResult> {
  const result = await call;
  if (result.status !== status) throw new Error(`${what} answered ${result.status}: ${result.text}`);
  return result;
}

/** The newest code sent about `subjectId` (the client records it, so the log scan proves it never leaked). */
export function codeFor(http: PartnerHttpClient, subjectId: string): Promise<string> {
  return sandboxCode(http.sdk, subjectId);
}

/**
 * Creates a transfer or a send and, when `confirm`, confirms it with its code.
 * Resolves to the create's answer, or to a failure when the confirmation was not taken.
 */
export async function createAndConfirm(
  http: PartnerHttpClient,
  path: string,
  body: Record<string, unknown>,
  confirm: boolean,
): Promise<Attempt> {
  const created = await attempt(() => http.post(path, body));
  if ('failed' in created || created.status !== 202 || !confirm) return created;
  const code = await codeFor(http, created.body.id);
  const confirmed = await attempt(() => http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code }));
  if ('failed' in confirmed || confirmed.status !== 200)
    return { failed: `confirming ${created.body.id}: ${statusOf(confirmed)}` };
  return created;
}

export function transferBody(accountNumber: string, amountKes: string, key: string) {
  return {
    rail: 'mobile_money',
    destination: { accountNumber, accountName: 'Invariant Payee' },
    amount: { currency: 'KES', value: amountKes },
    idempotencyKey: key,
  };
}

/** Every order, transfer and send of the partner, from trading's and payouts' databases (read-only). */
export async function subjectsOf(pools: MoneyPools, partnerId: string): Promise<Subject[]> {
  const orders = (await ordersOf(pools, partnerId)).map((order): Subject => ({
    id: order.orderId,
    kind: 'order',
    status: order.status,
    kesDebit: order.kesTotalAmount,
    usdtCredit: order.usdtAmount,
    usdtDebit: '0',
  }));
  const transfers = await pools.payouts.query(
    `SELECT transfer_id AS id, status, (amount_kes + fee_kes)::text AS kes FROM transfers WHERE partner_id = $1`,
    [partnerId],
  );
  const sends = await pools.payouts.query(
    'SELECT send_id AS id, status, usdt_amount::text AS usdt FROM usdt_sends WHERE partner_id = $1',
    [partnerId],
  );
  return [
    ...orders,
    ...transfers.rows.map((row): Subject => ({
      id: row.id,
      kind: 'transfer',
      status: row.status,
      kesDebit: row.kes,
      usdtCredit: '0',
      usdtDebit: '0',
    })),
    ...sends.rows.map((row): Subject => ({
      id: row.id,
      kind: 'usdt_send',
      status: row.status,
      kesDebit: '0',
      usdtCredit: '0',
      usdtDebit: row.usdt,
    })),
  ];
}

/** Waits until no order, transfer or send of the partner can still move money. */
export function subjectsTerminated(pools: MoneyPools, partnerId: string): Promise<Subject[]> {
  return waitFor(
    async () => {
      const subjects = await subjectsOf(pools, partnerId);
      const ended = subjects.every((subject) =>
        (subject.kind === 'order' ? TERMINAL_STATUSES : PAYOUT_TERMINAL_STATUSES).includes(subject.status),
      );
      return ended ? subjects : undefined;
    },
    {
      timeoutMs: TERMINAL_WAIT_MS,
      intervalMs: TERMINAL_POLL_MS,
      what: `every order, transfer and send of ${partnerId} to end`,
    },
  );
}

/**
 * Every subject's money is whole, across the partner's KES and USDT accounts:
 * one cap usage per subject, unreleased exactly when settled; one hold per
 * settled subject, posted with its entry; a hold of an unsettled subject voided;
 * a hold or usage naming no subject only as the undo of a refused create
 * (released usage, voided hold of the same id); the unreleased usages within `capKes`
 * and equal to what trading's cap window counts.
 */
export async function expectSubjectsWhole(
  pools: MoneyPools,
  partnerId: string,
  subjects: Subject[],
  capKes: string,
): Promise<void> {
  const byId = new Map(subjects.map((subject) => [subject.id, subject]));
  const usages = (
    await pools.trading.query(
      'SELECT usage_id, source, amount_kes::text AS amount, released_at FROM cap_usages WHERE partner_id = $1',
      [partnerId],
    )
  ).rows;
  const holds = (
    await pools.ledger.query(
      'SELECT h.id, h.status, h.entry_id FROM holds h JOIN accounts a ON a.id = h.account_id WHERE a.partner_id = $1',
      [partnerId],
    )
  ).rows;
  const releasedUndo = new Set(
    usages
      .filter((usage) => !byId.has(usage.usage_id) && usage.released_at !== null && usage.source !== 'order')
      .map((usage) => usage.usage_id),
  );
  const problems: string[] = [];
  for (const usage of usages) {
    const subject = byId.get(usage.usage_id);
    if (!subject) {
      if (usage.released_at === null) problems.push(`unreleased cap usage ${usage.usage_id} names nothing`);
    } else if ((subject.status === 'settled') === (usage.released_at !== null))
      problems.push(`${subject.kind} ${subject.id} ${subject.status} with usage released_at ${usage.released_at}`);
  }
  const usageIds = new Set(usages.map((usage) => usage.usage_id));
  for (const subject of subjects)
    if (!usageIds.has(subject.id)) problems.push(`${subject.kind} ${subject.id} has no cap usage`);
  for (const hold of holds) {
    const subject = byId.get(hold.id);
    if (!subject) {
      if (!(hold.status === 'voided' && releasedUndo.has(hold.id)))
        problems.push(`hold ${hold.id} (${hold.status}) names nothing`);
    } else if (subject.status === 'settled' ? hold.status !== 'posted' || !hold.entry_id : hold.status !== 'voided')
      problems.push(`${subject.kind} ${subject.id} ${subject.status} with hold ${hold.status}`);
  }
  const holdIds = new Set(holds.map((hold) => hold.id));
  for (const subject of subjects)
    if (subject.status === 'settled' && !holdIds.has(subject.id))
      problems.push(`settled ${subject.kind} ${subject.id} has no hold`);
  expect(problems).toEqual([]);
  const reserved = usages
    .filter((usage) => usage.released_at === null)
    .reduce((sum, usage) => sum + minorUnits(usage.amount, 2), 0n);
  expect(reserved <= minorUnits(capKes, 2)).toBe(true);
  expect(await capWindowKes(pools, partnerId)).toBe(reserved);
}

/**
 * The KES trading's cap window counts for the partner (minor units). Every usage of a
 * suite is minutes old, inside the window, so it must equal the unreleased usages: the
 * triggers kept the window through every reservation and release, concurrent ones included.
 */
async function capWindowKes(pools: MoneyPools, partnerId: string): Promise<bigint> {
  const { rows } = await pools.trading.query(
    'SELECT open_kes::text AS "openKes" FROM cap_windows WHERE partner_id = $1',
    [partnerId],
  );
  return minorUnits(rows[0]?.openKes ?? '0', 2);
}

/** Both balances equal the funding less what settled (orders add USDT; transfers take amount + fee; sends take USDT); nothing held. */
export async function expectSubjectBalancesMatch(
  http: PartnerHttpClient,
  fundedKes: string,
  fundedUsdt: string,
  subjects: Subject[],
): Promise<void> {
  const result = await http.get('/v1/balances');
  expect(result.status).toBe(200);
  const balance = Object.fromEntries(
    (result.body as { currency: string; available: string; held: string }[]).map((b) => [b.currency, b]),
  );
  const settled = subjects.filter((subject) => subject.status === 'settled');
  const sum = (pick: (subject: Subject) => string, scale: number) =>
    settled.reduce((total, subject) => total + minorUnits(pick(subject), scale), 0n);
  expect({
    kes: minorUnits(balance.KES.available, 2),
    kesHeld: minorUnits(balance.KES.held, 2),
    usdt: minorUnits(balance.USDT.available, 6),
    usdtHeld: minorUnits(balance.USDT.held, 6),
  }).toEqual({
    kes: minorUnits(fundedKes, 2) - sum((subject) => subject.kesDebit, 2),
    kesHeld: 0n,
    usdt: minorUnits(fundedUsdt, 6) + sum((subject) => subject.usdtCredit, 6) - sum((subject) => subject.usdtDebit, 6),
    usdtHeld: 0n,
  });
}
