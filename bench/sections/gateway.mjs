// Partner reads and writes through the gateway beside their ceilings: signed GET /v1/health,
// GET /v1/balances, GET /v1/orders/{id} and POST /v1/quotes (autocannon, closed loop) against
// a bare express and a bare node:http hello-world receiving the same signed requests; then
// GET /v1/orders/{id} at half the rate it just reached, for its p99 there. Last, the pages a
// partner reconciles with: GET /v1/events?limit=100 and a statement page of 100 lines asked by
// one client in turn with the read on the idle stack (a page must be served within the latency
// budget of one read, the read's p50 printed beside it), then each under load beside
// GET /v1/orders/{id} of the same run (printed, not judged).
import { waitFor } from '../../scripts/lib/processes.mjs';
import { step } from '../../scripts/lib/steps.mjs';
import { autocannonRequests } from '../lib/http.mjs';
import { cannon, cannonInvalid, withCeiling } from '../lib/ceilings.mjs';
import { quoteAndBuy } from '../lib/load.mjs';
import { ORDER_KES } from '../lib/partners.mjs';
import { clockTicksPerSecond, cpuMsBetween, cpuTicksSnapshot } from '../lib/proc.js';
import { summarise } from '../lib/stats.js';

const SECTION = 'gateway: partner requests beside hello-world ceilings';
/** The load is shared by this many partners, each far below its rate limit. */
export const PARTNERS = 4;
/** A full page of the feed and of a statement: every partner gets this many credits, each an event and a posting. */
export const PAGE_SIZE = 100;
const CREDITS_IN_FLIGHT = 8;
/** How long the events feed may take to number the credits' events (its positioner runs every 500 ms), and their webhooks to arrive. */
const FEED_READY_WAIT_MS = 30_000;
/** The event a sandbox KES credit produces. */
const CREDIT_EVENT = 'credit.received';

/** One-client page rounds run first and not counted (connection open, code paths warm). */
const ONE_CLIENT_WARMUP_ROUNDS = 20;
/** The one-client page rounds together stop after this long, counted or not. */
const ONE_CLIENT_TIME_LIMIT_MS = 60_000;

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
  const perRequest = Object.fromEntries(
    Object.entries(cpuMs).map(([name, ms]) => [name, ms === null || figure.total === 0 ? null : ms / figure.total]),
  );
  return {
    ...figure,
    cpuMsPerRequest: { ...perRequest, total: Object.values(perRequest).reduce((sum, ms) => sum + (ms ?? 0), 0) },
  };
}

function cpuRow(name, figure) {
  const { total, ...byProcess } = figure.cpuMsPerRequest;
  const top = Object.entries(byProcess)
    .filter(([, ms]) => ms !== null)
    .sort((left, right) => right[1] - left[1])
    .slice(0, CPU_NAMES_SHOWN);
  return {
    section: SECTION,
    value: total,
    invalid: cannonInvalid(figure),
    figure: `  CPU ms per request, ${name}, every process (${top.map(([process, ms]) => `${process} ${ms.toFixed(2)}`).join(', ')})`,
  };
}

/** PAGE_SIZE sandbox credits for a partner (a credit.received event and a KES posting each), a few at a time. */
export async function creditsForPages(partner) {
  let next = 0;
  const worker = async () => {
    while (next < PAGE_SIZE) {
      next += 1;
      await partner.client.expect('POST', '/v1/sandbox/kes-credits', { amount: '1.00' }, 201);
    }
  };
  await Promise.all(Array.from({ length: CREDITS_IN_FLIGHT }, worker));
}

/** Resolves once the partner's feed serves a full page (its events numbered), else throws. */
export async function feedFull(partner) {
  const deadline = Date.now() + FEED_READY_WAIT_MS;
  for (;;) {
    const page = await partner.client.get(`/v1/events?limit=${PAGE_SIZE}`);
    if (page.status === 200 && page.body.length === PAGE_SIZE) return;
    if (Date.now() > deadline)
      throw new Error(`the events feed served ${page.status} with ${page.body?.length ?? 0} events, not ${PAGE_SIZE}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Resolves once the receiver has counted `atLeast` webhooks of `type` (at least once: duplicates count), else throws. */
async function webhooksReceived(receiver, type, atLeast) {
  const received = () => receiver.counts.byType[type] ?? 0;
  await waitFor(() => received() >= atLeast, {
    timeoutMs: FEED_READY_WAIT_MS,
    intervalMs: 250,
    what: `${atLeast} ${type} webhooks received`,
  });
  return `${received()} ${type} webhooks received`;
}

export async function kesAccountOf(partner) {
  const balances = await partner.client.get('/v1/balances');
  const kes = Array.isArray(balances.body) ? balances.body.find((balance) => balance.currency === 'KES') : undefined;
  if (balances.status !== 200 || !kes)
    throw new Error(`GET /v1/balances answered ${balances.status} without a KES account`);
  return kes.accountId;
}

/**
 * One client, one request at a time on an idle stack: GET /v1/orders/{id}, then the events page,
 * then the statement page, round after round; p50 / p99 of each, a page's beside the read's.
 * Latency, not throughput: what a partner paging through its books waits per page against
 * what it waits for one read, with nothing shared between concurrent requests. Judged against
 * the read's own budget (figures.js), the read's p50 of the same rounds beside it.
 */
async function oneClientPages(ctx, partner, orderId, accountId) {
  const paths = {
    order: `/v1/orders/${orderId}`,
    events: `/v1/events?limit=${PAGE_SIZE}`,
    statement: `/v1/balances/${accountId}/transactions?limit=${PAGE_SIZE}`,
  };
  const latencies = { order: [], events: [], statement: [] };
  const rounds = ctx.options.sequentialRounds;
  const deadline = Date.now() + ONE_CLIENT_TIME_LIMIT_MS;
  const measuredRounds = await step(
    `one client: ${rounds} rounds of GET /v1/orders/{id}, events page, statement page`,
    async () => {
      let done = 0;
      for (let index = 0; index < ONE_CLIENT_WARMUP_ROUNDS + rounds && Date.now() < deadline; index += 1) {
        for (const [name, pathAndQuery] of Object.entries(paths)) {
          const startedAt = process.hrtime.bigint();
          const answer = await partner.client.get(pathAndQuery);
          const elapsedMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
          if (answer.status !== 200) throw new Error(`GET ${pathAndQuery} answered ${answer.status}`);
          if (index >= ONE_CLIENT_WARMUP_ROUNDS) latencies[name].push(elapsedMs);
        }
        if (index >= ONE_CLIENT_WARMUP_ROUNDS) done += 1;
      }
      return done;
    },
  );
  const summaries = Object.fromEntries(Object.entries(latencies).map(([name, values]) => [name, summarise(values)]));
  const read = summaries.order;
  for (const [name, label, id] of [
    ['events', `GET /v1/events?limit=${PAGE_SIZE}`, 'gateway.eventsPage'],
    ['statement', `GET /v1/balances/{accountId}/transactions?limit=${PAGE_SIZE}`, 'gateway.statementPage'],
  ]) {
    ctx.rows.push({
      section: SECTION,
      id,
      figure: `one client, idle stack: signed ${label} p50 ms (p99 ${summaries[name].p99Ms}, ${summaries[name].count} pages)`,
      value: summaries[name].p50Ms,
      ceiling: `signed GET /v1/orders/{id} p50 ms, same client, same rounds (p99 ${read.p99Ms})`,
      ceilingValue: read.p50Ms,
      invalid:
        measuredRounds < rounds
          ? `${measuredRounds} of ${rounds} rounds within ${ONE_CLIENT_TIME_LIMIT_MS} ms`
          : undefined,
    });
  }
  return { rounds: measuredRounds, latency: summaries };
}

/** GET /v1/events and a statement page, PAGE_SIZE items each, beside GET /v1/orders/{id} of the same run. */
async function pageRows(ctx, partners, orderIds, senders, orderRead) {
  const creditsDelivered = (ctx.receiver.counts.byType[CREDIT_EVENT] ?? 0) + partners.length * PAGE_SIZE;
  await step(`${PAGE_SIZE} credits per partner for full pages`, () => Promise.all(partners.map(creditsForPages)));
  await step('events feed numbered', () => Promise.all(partners.map(feedFull)));
  // The one-client rounds are judged on an idle stack: the credits' webhooks are out first.
  await step('credits delivered as webhooks', () => webhooksReceived(ctx.receiver, CREDIT_EVENT, creditsDelivered));
  const accounts = await Promise.all(partners.map(kesAccountOf));
  const { connections, durationS } = ctx.options;
  const pages = [
    [`GET /v1/events?limit=${PAGE_SIZE}`, senders(() => `/v1/events?limit=${PAGE_SIZE}`)],
    [
      `GET /v1/balances/{accountId}/transactions?limit=${PAGE_SIZE}`,
      senders((index) => `/v1/balances/${accounts[index]}/transactions?limit=${PAGE_SIZE}`),
    ],
  ];
  const figures = { oneClient: await oneClientPages(ctx, partners[0], orderIds[0], accounts[0]) };
  for (const [name, requests] of pages) {
    const figure = await step(`gateway signed ${name}`, () =>
      measured(ctx, () => cannon(ctx.gatewayUrl, autocannonRequests(requests, 'GET'), { connections, durationS })),
    );
    figures[name] = figure;
    ctx.rows.push({
      section: SECTION,
      figure: `signed ${name}, a page of ${PAGE_SIZE}, req/s (${latencyText(figure)})`,
      value: figure.requestsPerSecond,
      ceiling: `signed GET /v1/orders/{id} req/s, same run (${latencyText(orderRead)})`,
      ceilingValue: orderRead.requestsPerSecond,
      invalid: cannonInvalid(figure),
    });
    ctx.rows.push(cpuRow(name, figure));
  }
  return figures;
}

export async function gatewaySection(ctx) {
  const { connections, durationS } = ctx.options;
  const partners = [];
  for (let index = 0; index < PARTNERS; index += 1)
    partners.push(await ctx.newPartner(`Bench reads ${index + 1}`, { sockets: 1 }));
  const orderIds = [];
  for (const partner of partners) {
    const placed = await quoteAndBuy(partner.client);
    if (placed.failure) throw new Error(`an order to read could not be placed: ${placed.failure}`);
    orderIds.push(placed.orderId);
  }
  ctx.placedOrderIds.push(...orderIds);
  const senders = (pathOf) =>
    partners.map((partner, index) => ({ credentials: partner.credentials, path: pathOf(index) }));
  const health = autocannonRequests(
    senders(() => '/v1/health'),
    'GET',
  );
  const ceilings = {};
  for (const kind of ['node:http', 'express']) {
    ceilings[kind] = await step(`ceiling ${kind} hello-world`, () =>
      withCeiling(kind, (url) => cannon(url, health, { connections, durationS })),
    );
  }
  const loads = [
    ['GET /v1/health', 'gateway.health', health],
    [
      'GET /v1/balances',
      null,
      autocannonRequests(
        senders(() => '/v1/balances'),
        'GET',
      ),
    ],
    [
      'GET /v1/orders/{id}',
      'gateway.order',
      autocannonRequests(
        senders((index) => `/v1/orders/${orderIds[index]}`),
        'GET',
      ),
    ],
    [
      'POST /v1/quotes',
      'gateway.quote',
      autocannonRequests(
        senders(() => '/v1/quotes'),
        'POST',
        { side: 'buy', kesAmount: ORDER_KES },
      ),
    ],
  ];
  const gateway = {};
  for (const [name, id, requests] of loads) {
    gateway[name] = await step(`gateway signed ${name}`, () =>
      measured(ctx, () => cannon(ctx.gatewayUrl, requests, { connections, durationS })),
    );
    const figure = gateway[name];
    for (const kind of ['express', 'node:http']) {
      ctx.rows.push({
        section: SECTION,
        id: id && kind === 'express' ? `${id}.express` : undefined,
        figure: `signed ${name} req/s (${latencyText(figure)})`,
        value: figure.requestsPerSecond,
        ceiling: `${kind} hello-world req/s (${latencyText(ceilings[kind])})`,
        ceilingValue: ceilings[kind].requestsPerSecond,
        invalid: cannonInvalid(figure),
      });
    }
    ctx.rows.push(cpuRow(name, figure));
  }
  const halfRate = Math.max(1, Math.round(gateway['GET /v1/orders/{id}'].requestsPerSecond / 2));
  const half = await step(`gateway signed GET /v1/orders/{id} at ${halfRate} req/s (half its maximum)`, () =>
    cannon(ctx.gatewayUrl, loads[2][2], { connections, durationS, overallRate: halfRate }),
  );
  ctx.rows.push({
    section: SECTION,
    id: 'gateway.order.halfLoadP99',
    figure: `signed GET /v1/orders/{id} p99 ms at ${halfRate} req/s, half its maximum (p50 ${half.p50Ms} ms)`,
    value: half.p99Ms,
    invalid: cannonInvalid(half),
  });
  const pages = await pageRows(
    ctx,
    partners,
    orderIds,
    (pathOf) => partners.map((partner, index) => ({ credentials: partner.credentials, path: pathOf(index) })),
    gateway['GET /v1/orders/{id}'],
  );
  return { connections, durationS, partners: PARTNERS, ceilings, gateway, halfLoad: half, pages };
}
