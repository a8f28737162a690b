// Partner reads and writes through the gateway beside their ceilings: signed GET /v1/health,
// GET /v1/balances, GET /v1/orders/{id} and POST /v1/quotes (autocannon, closed loop) against
// a bare express and a bare node:http hello-world receiving the same signed requests; then
// GET /v1/orders/{id} at half the rate it just reached, for its p99 there.
import { step } from '../../scripts/lib/steps.mjs';
import { autocannonRequests } from '../lib/http.mjs';
import { cannon, cannonInvalid, withCeiling } from '../lib/ceilings.mjs';
import { quoteAndBuy } from '../lib/load.mjs';
import { ORDER_KES } from '../lib/partners.mjs';
import { clockTicksPerSecond, cpuMsBetween, cpuTicksSnapshot } from '../lib/proc.js';

const SECTION = 'gateway: partner requests beside hello-world ceilings';
/** The load is shared by this many partners, each far below its rate limit. */
const PARTNERS = 4;

const latencyText = (figure) => `p50 / p99 ${figure.p50Ms} / ${figure.p99Ms} ms`;
/** Processes shown by name in a CPU-per-request row, the largest first. */
const CPU_NAMES_SHOWN = 3;

/**
 * The load's figure plus the CPU it cost per request in every stack process (the load
 * generator excluded): unlike requests per second, this holds on a busy machine.
 */
async function measured(ctx, load) {
  const before = cpuTicksSnapshot(ctx.processes);
  const figure = await load();
  const cpuMs = cpuMsBetween(before, cpuTicksSnapshot(ctx.processes), clockTicksPerSecond());
  const perRequest = Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, ms === null || figure.total === 0 ? null : ms / figure.total]));
  return { ...figure, cpuMsPerRequest: { ...perRequest, total: Object.values(perRequest).reduce((sum, ms) => sum + (ms ?? 0), 0) } };
}

function cpuRow(name, figure) {
  const { total, ...byProcess } = figure.cpuMsPerRequest;
  const top = Object.entries(byProcess).filter(([, ms]) => ms !== null).sort((left, right) => right[1] - left[1]).slice(0, CPU_NAMES_SHOWN);
  return {
    section: SECTION, value: total, invalid: cannonInvalid(figure),
    figure: `  CPU ms per request, ${name}, every process (${top.map(([process, ms]) => `${process} ${ms.toFixed(2)}`).join(', ')})`,
  };
}

export async function gatewaySection(ctx) {
  const { connections, durationS } = ctx.options;
  const partners = [];
  for (let index = 0; index < PARTNERS; index += 1) partners.push(await ctx.newPartner(`Bench reads ${index + 1}`, { sockets: 1 }));
  const orderIds = [];
  for (const partner of partners) {
    const placed = await quoteAndBuy(partner.client);
    if (placed.failure) throw new Error(`an order to read could not be placed: ${placed.failure}`);
    orderIds.push(placed.orderId);
  }
  ctx.placedOrderIds.push(...orderIds);
  const senders = (pathOf) => partners.map((partner, index) => ({ credentials: partner.credentials, path: pathOf(index) }));
  const health = autocannonRequests(senders(() => '/v1/health'), 'GET');
  const ceilings = {};
  for (const kind of ['node:http', 'express']) {
    ceilings[kind] = await step(`ceiling ${kind} hello-world`, () => withCeiling(kind, (url) => cannon(url, health, { connections, durationS })));
  }
  const loads = [
    ['GET /v1/health', 'gateway.health', health],
    ['GET /v1/balances', null, autocannonRequests(senders(() => '/v1/balances'), 'GET')],
    ['GET /v1/orders/{id}', 'gateway.order', autocannonRequests(senders((index) => `/v1/orders/${orderIds[index]}`), 'GET')],
    ['POST /v1/quotes', 'gateway.quote', autocannonRequests(senders(() => '/v1/quotes'), 'POST', { side: 'buy', kesAmount: ORDER_KES })],
  ];
  const gateway = {};
  for (const [name, id, requests] of loads) {
    gateway[name] = await step(`gateway signed ${name}`, () => measured(ctx, () => cannon(ctx.gatewayUrl, requests, { connections, durationS })));
    const figure = gateway[name];
    for (const kind of ['express', 'node:http']) {
      ctx.rows.push({
        section: SECTION, id: id && kind === 'express' ? `${id}.express` : undefined,
        figure: `signed ${name} req/s (${latencyText(figure)})`, value: figure.requestsPerSecond,
        ceiling: `${kind} hello-world req/s (${latencyText(ceilings[kind])})`, ceilingValue: ceilings[kind].requestsPerSecond, invalid: cannonInvalid(figure),
      });
    }
    ctx.rows.push(cpuRow(name, figure));
  }
  const halfRate = Math.max(1, Math.round(gateway['GET /v1/orders/{id}'].requestsPerSecond / 2));
  const half = await step(`gateway signed GET /v1/orders/{id} at ${halfRate} req/s (half its maximum)`, () => cannon(ctx.gatewayUrl, loads[2][2], { connections, durationS, overallRate: halfRate }));
  ctx.rows.push({
    section: SECTION, id: 'gateway.order.halfLoadP99', figure: `signed GET /v1/orders/{id} p99 ms at ${halfRate} req/s, half its maximum (p50 ${half.p50Ms} ms)`,
    value: half.p99Ms, invalid: cannonInvalid(half),
  });
  return { connections, durationS, partners: PARTNERS, ceilings, gateway, halfLoad: half };
}
