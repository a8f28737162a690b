// The order path: quote + debit-first buy, one partner, N closed-loop clients, with its cost
// measured over the same orders through settlement and webhook delivery (CPU per process,
// commits and rows per database and table); the p99 at a fixed order rate; pgbench
// tpcb-like with as many clients on the same PostgreSQL as the ceiling.
import { step } from '../../scripts/lib/steps.mjs';
import { measureOrderCost, ORDER_END_WAIT_MAX_MS } from '../lib/cost.mjs';
import { costRows } from '../lib/cost-rows.js';
import { closedLoop, failureText, fixedRate, ordersCreatedSince } from '../lib/load.mjs';
import { tpcbCeiling } from '../lib/pgbench.mjs';

const SECTION = 'order path: quote + debit-first buy, one partner';
/** Unanswered orders at most in the fixed-rate load; a planned start beyond it is skipped and counted. */
const FIXED_RATE_IN_FLIGHT_MAX = 200;
/** More skipped or failed than this share and the rate counts as not sustained. */
const FIXED_RATE_SHORTFALL_MAX = 0.01;

/** A closed loop of the configured clients for one partner, its cost measured around it. */
export async function measuredClosedLoop(ctx, partner, title) {
  const { orderClients, orderDurationS } = ctx.options;
  const earlier = [...ctx.placedOrderIds];
  const measured = await step(title, () =>
    measureOrderCost({
      statistics: ctx.statistics,
      processes: ctx.processes,
      waitEnded: ctx.receiver.waitEnded,
      createdSince: (sinceMs) => ordersCreatedSince(ctx.description.postgres.urlTemplate, partner.partnerId, sinceMs),
      earlierOrderIds: earlier,
      log: ctx.log,
      load: () => closedLoop({ partners: [partner], workers: orderClients, durationMs: orderDurationS * 1000 }),
    }),
  );
  ctx.placedOrderIds.push(...measured.created);
  return measured;
}

/** JSON-sized: the order ids are only needed while measuring. */
export const withoutIds = (load) => {
  const copy = { ...load };
  delete copy.orderIds;
  return copy;
};

export async function ordersSection(ctx) {
  const { orderClients, orderDurationS, fixedRatePerSecond, fixedRateDurationS } = ctx.options;
  const partner = await ctx.newPartner('Bench orders', { sockets: orderClients });
  const atZero = await measuredClosedLoop(
    ctx,
    partner,
    `${orderClients} clients, ${orderDurationS} s, then settlement and webhooks (cost measured around it)`,
  );
  const fixedPartner = await ctx.newPartner('Bench fixed rate', { sockets: FIXED_RATE_IN_FLIGHT_MAX });
  const fixed = await step(`${fixedRatePerSecond} orders/s for ${fixedRateDurationS} s`, () =>
    fixedRate({
      partner: fixedPartner,
      ratePerSecond: fixedRatePerSecond,
      durationMs: fixedRateDurationS * 1000,
      inFlightMax: FIXED_RATE_IN_FLIGHT_MAX,
    }),
  );
  const fixedCreated = await ordersCreatedSince(ctx.description.postgres.urlTemplate, fixedPartner.partnerId, 0);
  ctx.placedOrderIds.push(...fixedCreated);
  await step('fixed-rate orders ended', () => ctx.receiver.waitEnded(fixedCreated, ORDER_END_WAIT_MAX_MS));
  const pgbench = await step(`pgbench tpcb-like, ${orderClients} clients, ${orderDurationS} s, same PostgreSQL`, () =>
    tpcbCeiling(ctx.description.postgres.urlTemplate, orderClients, orderDurationS),
  );

  const load = atZero.load;
  const failed = failureText(load.failures);
  ctx.rows.push(
    {
      section: SECTION,
      id: 'orders.closedLoop',
      unmet: failed ? `failed: ${failed}` : undefined,
      figure: `orders/s, ${orderClients} closed-loop clients (p50 / p99 ${load.latency.p50Ms} / ${load.latency.p99Ms} ms; quote p50 ${load.quote.p50Ms}, buy p50 ${load.buy.p50Ms})`,
      value: load.ordersPerSecond,
      ceiling: `pgbench tpcb-like tps, ${pgbench.clients} clients (latency avg ${pgbench.latencyAverageMs} ms)`,
      ceilingValue: pgbench.tps,
    },
    fixedRateRow(fixed),
  );
  if (atZero.cost)
    ctx.rows.push(
      ...costRows(atZero.cost, { section: `cost per order, from the ${orderClients}-client run`, judged: true }),
    );
  return {
    closedLoop: withoutIds(load),
    cost: atZero.cost,
    fixedRate: withoutIds(fixed),
    pgbench,
    partnerId: partner.partnerId,
  };
}

function fixedRateRow(fixed) {
  const shortfall = fixed.planned - fixed.orders;
  const failed = failureText(fixed.failures);
  return {
    section: SECTION,
    id: 'orders.fixedRateP99',
    figure: `p99 ms at a fixed ${fixed.ratePerSecond} orders/s, from the planned start (p50 ${fixed.latency.p50Ms}; ${fixed.orders} of ${fixed.planned} placed, achieved ${fixed.achievedPerSecond}/s)`,
    value: fixed.latency.p99Ms,
    unmet:
      shortfall > fixed.planned * FIXED_RATE_SHORTFALL_MAX
        ? `rate not sustained: ${fixed.skipped} skipped at ${fixed.inFlightMax} in flight${failed ? `, ${failed}` : ''}`
        : undefined,
  };
}
