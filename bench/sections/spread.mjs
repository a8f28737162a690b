// The order path spread over several partners (what the platform does across partners,
// against one partner's orders queueing on its own rows): same clients and duration as the
// orders section, worker i ordering for partner i mod PARTNERS. Not in the default run.
import { step } from '../../scripts/lib/steps.mjs';
import { closedLoop, failureText } from '../lib/load.mjs';
import { ORDER_END_WAIT_MAX_MS } from '../lib/cost.mjs';
import { withoutIds } from './orders.mjs';

const SECTION = 'order path spread over partners';
const PARTNERS = 8;

export async function spreadSection(ctx) {
  const { orderClients, orderDurationS } = ctx.options;
  const partners = [];
  for (let index = 0; index < PARTNERS; index += 1)
    partners.push(await ctx.newPartner(`Bench spread ${index + 1}`, { sockets: Math.ceil(orderClients / PARTNERS) }));
  const load = await step(`${orderClients} clients over ${PARTNERS} partners, ${orderDurationS} s`, () =>
    closedLoop({ partners, workers: orderClients, durationMs: orderDurationS * 1000 }),
  );
  ctx.placedOrderIds.push(...load.orderIds);
  await step('spread orders ended', () => ctx.receiver.waitEnded(load.orderIds, ORDER_END_WAIT_MAX_MS));
  const failed = failureText(load.failures);
  ctx.rows.push({
    section: SECTION,
    invalid: failed ? `failed: ${failed}` : undefined,
    figure: `orders/s, ${orderClients} clients over ${PARTNERS} partners (p50 / p99 ${load.latency.p50Ms} / ${load.latency.p99Ms} ms)`,
    value: load.ordersPerSecond,
    ceiling: 'one partner, same clients, orders/s',
    ceilingValue: ctx.results.orders?.closedLoop.ordersPerSecond,
  });
  return withoutIds(load);
}
