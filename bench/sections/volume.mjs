// Is the cost of an order flat in the partner's volume? The same closed loop as the orders
// section, for a partner with `historyOrders` earlier orders in its 24-hour window (one real
// settled order, cloned in PostgreSQL through the services' own tables: bench/seed/), beside
// the run with none. The seeding is checked before it is measured: the ledger reconciles,
// a seeded order reads back through the gateway, and the daily cap counts them.
import { createRequire } from 'node:module';
import { step } from '../../scripts/lib/steps.mjs';
import { cloneId } from '../lib/clone-sql.js';
import { historyRows, TRADING_DATABASE } from '../lib/cost-rows.js';
import { quoteAndBuy } from '../lib/load.mjs';
import { FUNDING_KES_DEFAULT } from '../lib/partners.mjs';
import { runOps, services } from '../lib/stack.mjs';
import { ORDER_END_WAIT_MAX_MS } from '../lib/cost.mjs';
import { orderTemplate, seedHistory } from '../seed/index.mjs';
import { measuredClosedLoop, withoutIds } from './orders.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const { clientAs } = require('@platform/testing');
const { createLogger } = require('@platform/logger');
const { trading } = require('@platform/proto');
const { Big } = require('@platform/money');

const SECTION = "order cost against the partner's volume";
/** Clones spread over this much of the 24-hour window before the template, so none leaves it during the run. */
const HISTORY_SPAN_MS = 23 * 60 * 60 * 1000;
/** KES an order takes with its fee, rounded up; and what the measured run may still spend. */
const KES_PER_ORDER_FUNDED = 101;
const RUN_FUNDING_KES = 5_000_000;
const LIMITS_CALL_DEADLINE_MS = 10_000;

/** Enough sandbox credits of FUNDING_KES_DEFAULT for the history and the run. */
function fundingFor(historyOrders) {
  const needed = historyOrders * KES_PER_ORDER_FUNDED + RUN_FUNDING_KES;
  return Array.from({ length: Math.ceil(needed / Number(FUNDING_KES_DEFAULT)) }, () => FUNDING_KES_DEFAULT);
}

/** The template order's quote id and creation time, read from trading's own row. */
async function templateOf(urlTemplate, orderId) {
  const client = new Client({ connectionString: urlTemplate.replace('{database}', 'svc_trading') });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT quote_id::text AS "quoteId", to_json(created_at) #>> \'{}\' AS "createdAtIso" FROM orders WHERE order_id = $1',
      [orderId],
    );
    if (rows.length !== 1) throw new Error(`trading has no order ${orderId}`);
    return orderTemplate({ orderId, ...rows[0] });
  } finally {
    await client.end();
  }
}

/** The daily cap in use, as trading answers GetPartnerLimits (null, with why, when it cannot be asked). */
async function dailyUsedKes(ctx, partnerId) {
  // Over mutual TLS, as the operator identity (the one trading admits for this read besides payouts).
  process.env.TEST_STACK_FILE = ctx.stackFile;
  const client = clientAs('ops', trading.TradingLimitsService, {
    upstream: 'trading',
    logger: createLogger('bench', 'error'),
    deadlineMs: LIMITS_CALL_DEADLINE_MS,
  });
  try {
    return { usedKes: (await client.getPartnerLimits({ partnerId })).dailyUsedKes };
  } catch (error) {
    return { usedKes: null, why: error.message };
  } finally {
    client.close();
  }
}

/** Stops the run unless the seeded history is what the services see. */
async function verifySeeding(ctx, partner, tag, clones, usedBefore) {
  const check = await runOps(ctx.stackFile, ['ledger', 'check'], { exitCodes: [0, 1] });
  if (!check.ok)
    throw new Error(
      `the ledger does not reconcile after seeding: ${JSON.stringify(check.checks.filter((entry) => !entry.ok))}`,
    );
  const cloneOrderId = cloneId(tag, 'order', Math.ceil(clones / 2));
  const read = await partner.client.get(`/v1/orders/${cloneOrderId}`);
  if (read.status !== 200 || read.body.status !== 'settled')
    throw new Error(`seeded order ${cloneOrderId} reads back ${read.status} ${JSON.stringify(read.body)}`);
  const after = await dailyUsedKes(ctx, partner.partnerId);
  if (after.usedKes === null || usedBefore.usedKes === null)
    return `daily cap not checked: ${after.why ?? usedBefore.why}`;
  const expected = new Big(usedBefore.usedKes).times(clones + 1);
  if (!new Big(after.usedKes).eq(expected))
    throw new Error(`the daily cap counts ${after.usedKes} KES in use after seeding, expected ${expected.toFixed(2)}`);
  return `ledger reconciles; seeded order reads back settled; daily cap in use ${after.usedKes} KES`;
}

export async function volumeSection(ctx) {
  const count = ctx.options.historyOrders;
  const { orderClients, orderDurationS } = ctx.options;
  const earlier = ctx.results.orders?.cost
    ? { load: ctx.results.orders.closedLoop, cost: ctx.results.orders.cost }
    : undefined;

  const partner = await ctx.newPartner('Bench volume', { sockets: orderClients, fundingKes: fundingFor(count) });
  const placed = await quoteAndBuy(partner.client);
  if (placed.failure) throw new Error(`the template order failed: ${placed.failure}`);
  ctx.placedOrderIds.push(placed.orderId);
  const missing = await step('template order settled and delivered', () =>
    ctx.receiver.waitEnded([placed.orderId], ORDER_END_WAIT_MAX_MS),
  );
  if (missing.length > 0 || ctx.receiver.endings([placed.orderId])['order.settled'] !== 1) {
    throw new Error(
      `the template order ${placed.orderId} did not settle in ${ORDER_END_WAIT_MAX_MS} ms (${JSON.stringify(ctx.receiver.endings([placed.orderId]))})`,
    );
  }
  const template = await templateOf(ctx.description.postgres.urlTemplate, placed.orderId);
  const usedBefore = await dailyUsedKes(ctx, partner.partnerId);
  const tag = `bench-${Date.now().toString(36)}`;
  const clones = count - 1;
  const seeded = await step(`seeded ${clones.toLocaleString('en-US')} clones of a settled order in PostgreSQL`, () =>
    seedHistory({
      urlTemplate: ctx.description.postgres.urlTemplate,
      databases: services.DATABASE_NAMES,
      template,
      count: clones,
      tag,
      spanMs: HISTORY_SPAN_MS,
      log: ctx.log,
    }),
  );
  const verified = await step('seeded history checked', () => verifySeeding(ctx, partner, tag, clones, usedBefore));
  // The baseline differs from the measured run in the partner's history alone: same database,
  // the minute before. (The orders section's run, minutes earlier on a smaller database, moved
  // with the machine: at 10:08 every process's CPU per order rose 29 % against it, the gateway's
  // as much, though it does nothing different for a partner with history.)
  const without = await measuredClosedLoop(
    ctx,
    await ctx.newPartner('Bench volume, none earlier', { sockets: orderClients }),
    `${orderClients} clients, ${orderDurationS} s, 0 earlier orders, same database (cost measured)`,
  );
  const withHistory = await measuredClosedLoop(
    ctx,
    partner,
    `${orderClients} clients, ${orderDurationS} s, ${count.toLocaleString('en-US')} earlier orders (cost measured)`,
  );
  if (!withHistory.cost || !without.cost) throw new Error('a run placed no order: nothing to compare');
  const historyTables = Object.keys(seeded.rows)
    .filter((name) => name.startsWith(`${TRADING_DATABASE}.`))
    .map((name) => name.slice(TRADING_DATABASE.length + 1));
  ctx.rows.push(...historyRows({ withHistory, without, earlier, historyTables, count, section: SECTION }));
  return {
    historyOrders: count,
    seeded,
    verified,
    template,
    partnerId: partner.partnerId,
    withHistory: { load: withoutIds(withHistory.load), cost: withHistory.cost },
    without: { load: withoutIds(without.load), cost: without.cost },
    earlier: earlier ? { load: withoutIds(earlier.load), cost: earlier.cost } : null,
  };
}
