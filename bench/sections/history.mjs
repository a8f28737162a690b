// `npm run bench -- --history [small|full|large]`: is the platform as fast with months of
// history as on an empty database? The order and read rows of the bench run twice on one
// stack: first on the empty database, then after seeding PostgreSQL directly through the
// services' own tables (bench/seed/, the same cloning the volume section uses):
//   - partners: PARTNERS clones of a partner created with the ops tool (accounts, credentials,
//     webhook endpoint, profile, settings: every row that mentions it, bench/seed/partners.mjs);
//   - background: a partner's BACKGROUND orders (quotes, ledger hold/entry/postings and the
//     statement lines the ledger's trigger writes, cap usages, webhook deliveries and attempts
//     numbered in the events feed) spread over 90 days before now;
//   - hot: the measured partner with HOT orders inside its 24-hour window (its daily cap counts them);
//   - transfers: the background partner's TRANSFERS payouts transfers over the same 90 days (the
//     confirmation, transfer and payout instruction, the cap usage, the ledger hold/entry/postings
//     and statement lines, the code's notifier message, the webhook deliveries and attempts).
// Then the same loads for the hot partner, printed beside the empty run, rows read per order
// per table beside those of a partner without earlier orders on the seeded database (and,
// unjudged, the empty run's), each service's resident memory after the history run, and
// every table's size after the seeding with the disk an order takes.
import { step } from '../../scripts/lib/steps.mjs';
import { cannon } from '../lib/ceilings.mjs';
import { cloneId } from '../lib/clone-sql.js';
import { ORDER_END_WAIT_MAX_MS } from '../lib/cost.mjs';
import { historyComparisonRows, historySizes, seedingRows } from '../lib/history-rows.js';
import { autocannonRequests } from '../lib/http.mjs';
import { deliveryWindowMs } from '../lib/retention-window.js';
import { quoteAndBuy } from '../lib/load.mjs';
import { BENCH_ADMIN_DOMAIN, FUNDING_KES_DEFAULT, withRateWindowEmptied } from '../lib/partners.mjs';
import { rssKiB } from '../lib/proc.js';
import { runOps, services } from '../lib/stack.mjs';
import { HISTORY_SEEDERS, orderTemplate, seedHistory, TRANSFER_SEEDERS, transferTemplate } from '../seed/index.mjs';
import { seedPartners } from '../seed/partners.mjs';
import { webhookDeliveries } from '../seed/webhook-deliveries.mjs';
import { kesAccountOf, PAGE_SIZE } from './gateway.mjs';
import { measuredClosedLoop, withoutIds } from './orders.mjs';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const { sandboxCode } = require('@platform/testing');
const { Big } = require('@platform/money');

const SECTION = 'history: the same runs on a seeded database beside an empty one';
const SIZES_SECTION = 'history: seeding and disk';
const MEMORY_SECTION = 'history: resident memory per service after the history run (MiB)';
const DAY_MS = 24 * 60 * 60 * 1000;
/** The hot partner's clones stay inside its 24-hour window for the whole run. */
const HOT_SPAN_MS = 23 * 60 * 60 * 1000;
const KES_PER_ORDER_FUNDED = 101;
/** What each seeded transfer sends; with the flat fee (25 KES by default) it must stay within KES_PER_TRANSFER_FUNDED. */
const TRANSFER_KES = '10.00';
const KES_PER_TRANSFER_FUNDED = 50;
/** The template transfer's payee: a valid sandbox number the sandbox bank settles. */
const TRANSFER_DESTINATION = { accountNumber: '254712345678', accountName: 'Bench Payee' };
const RUN_FUNDING_KES = 5_000_000;
/** The template's deliveries are marked delivered just after the receiver answers. */
const DELIVERED_WAIT_MS = 30_000;
/** `ops ledger check` over millions of postings. */
const LEDGER_CHECK_TIMEOUT_MS = 30 * 60_000;
const MIB = 1024;
/** Retention deleting the seeded rows already past their window (a third of 90 days of deliveries). */
const RETENTION_WAIT_MAX_MS = 30 * 60_000;
const RETENTION_POLL_MS = 5_000;
/** A retention sweeper's rows past their window not yet deleted, from a service's /metrics (measured at scrape). */
const RETENTION_DUE = /^worker_due_rows\{[^}]*worker="(retention_[a-z0-9_]+)"[^}]*\} (\S+)$/gm;

const SIZES_SQL = `
  SELECT relname AS name, pg_table_size(relid)::bigint AS "tableBytes", pg_indexes_size(relid)::bigint AS "indexBytes",
         n_live_tup::bigint AS "liveRows"
    FROM pg_stat_user_tables`;

function fundingFor(orders, transfers = 0) {
  const needed = orders * KES_PER_ORDER_FUNDED + transfers * KES_PER_TRANSFER_FUNDED + RUN_FUNDING_KES;
  return Array.from({ length: Math.ceil(needed / Number(FUNDING_KES_DEFAULT)) }, () => FUNDING_KES_DEFAULT);
}

async function withDatabase(urlTemplate, database, work) {
  const client = new Client({ connectionString: urlTemplate.replace('{database}', database) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The service databases' total size in bytes. */
function databasesBytes(urlTemplate) {
  return withDatabase(urlTemplate, 'postgres', async (client) => {
    const { rows } = await client.query(
      'SELECT sum(pg_database_size(datname))::bigint AS bytes FROM pg_database WHERE datname = ANY($1)',
      [services.DATABASE_NAMES],
    );
    return Number(rows[0].bytes);
  });
}

/** { 'db.table': { tableBytes, indexBytes, liveRows } } over every service database (after ANALYZE). */
async function tableSizes(urlTemplate) {
  const sizes = {};
  for (const database of services.DATABASE_NAMES) {
    await withDatabase(urlTemplate, database, async (client) => {
      await client.query('ANALYZE');
      const { rows } = await client.query(SIZES_SQL);
      for (const row of rows)
        sizes[`${database}.${row.name}`] = {
          tableBytes: Number(row.tableBytes),
          indexBytes: Number(row.indexBytes),
          liveRows: Number(row.liveRows),
        };
    });
  }
  return sizes;
}

/** { 'service retention_<table>': rows } of every retention sweeper with rows past their window, from each service's metrics. */
async function retentionDue(metricsUrls) {
  const due = {};
  for (const [service, url] of Object.entries(metricsUrls ?? {})) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${service} metrics answered ${response.status}`);
    const text = await response.text();
    for (const [, worker, value] of text.matchAll(RETENTION_DUE))
      if (Number(value) > 0) due[`${service} ${worker}`] = Number(value);
  }
  return due;
}

/**
 * Waits until the services' retention has deleted what the seeding wrote past its window (the
 * deliveries of the oldest 30 of the 90 days), so the measured run sees 90 days with retention
 * applied rather than retention catching up: its batches read the rows they delete, which the
 * rows-read columns would count against the orders. Resolves to { durationMs, dueAtStart }.
 */
async function retentionCaughtUp(ctx) {
  const startedAt = Date.now();
  const dueAtStart = await retentionDue(ctx.description.metricsUrls);
  for (let due = dueAtStart; Object.keys(due).length > 0; due = await retentionDue(ctx.description.metricsUrls)) {
    if (Date.now() - startedAt > RETENTION_WAIT_MAX_MS)
      throw new Error(`retention has not caught up with the seeded history: ${JSON.stringify(due)}`);
    ctx.log(`  past their window, not yet deleted (counted up to 10,000): ${JSON.stringify(due)}`);
    await new Promise((resolve) => setTimeout(resolve, RETENTION_POLL_MS));
  }
  return { durationMs: Date.now() - startedAt, dueAtStart };
}

/**
 * How long the stack's webhook-delivery keeps a finished delivery, from the environment the
 * stack started it with (service-env.json beside stack.json) read by the service's own config.
 */
function stackDeliveryWindowMs(ctx) {
  const environments = JSON.parse(readFileSync(path.join(ctx.description.stackDir, 'service-env.json'), 'utf8'));
  return deliveryWindowMs(environments['webhook-delivery']);
}

/** The read rows of the bench for one partner: an order, its balances, a feed page and a statement page. */
async function readFigures(ctx, partner, orderId) {
  const { connections, durationS } = ctx.options;
  const account = await kesAccountOf(partner);
  const reads = {
    'GET /v1/orders/{id}': `/v1/orders/${orderId}`,
    'GET /v1/balances': '/v1/balances',
    [`GET /v1/events?limit=${PAGE_SIZE}`]: `/v1/events?limit=${PAGE_SIZE}`,
    [`GET /v1/balances/{accountId}/transactions?limit=${PAGE_SIZE}`]: `/v1/balances/${account}/transactions?limit=${PAGE_SIZE}`,
  };
  const figures = {};
  for (const [name, path] of Object.entries(reads)) {
    const requests = autocannonRequests([{ credentials: partner.credentials, path }], 'GET');
    figures[name] = await step(`signed ${name}`, () =>
      withRateWindowEmptied(ctx.description.redisUrl, partner.partnerId, () =>
        cannon(ctx.gatewayUrl, requests, { connections, durationS }),
      ),
    );
  }
  return figures;
}

/** The order loop (its cost measured: rows read per table) and the reads, for one partner. */
async function measuredRun(ctx, partner, title) {
  const { load, cost } = await measuredClosedLoop(ctx, partner, title);
  if (!cost) throw new Error(`${title}: no order was placed`);
  const reads = await readFigures(ctx, partner, load.orderIds[0]);
  return { load, cost, reads };
}

/** A settled order of `partner` whose webhooks are delivered: the template every clone copies. */
async function templateOrder(ctx, partner) {
  const placed = await quoteAndBuy(partner.client);
  if (placed.failure) throw new Error(`the template order failed: ${placed.failure}`);
  ctx.placedOrderIds.push(placed.orderId);
  await endedAndDelivered(ctx, placed.orderId, 'order.settled');
  return withDatabase(ctx.description.postgres.urlTemplate, 'svc_trading', async (client) => {
    const { rows } = await client.query(
      'SELECT quote_id::text AS "quoteId", to_json(created_at) #>> \'{}\' AS "createdAtIso" FROM orders WHERE order_id = $1',
      [placed.orderId],
    );
    return orderTemplate({ orderId: placed.orderId, ...rows[0] });
  });
}

/**
 * A transfer of `partner` placed through the gateway, confirmed with the code read from its
 * sandbox outbox, settled by the sandbox bank and its webhooks delivered: the template every
 * transfer clone copies. The partner gets an administrator first (codes go to one).
 */
async function templateTransfer(ctx, partner) {
  await partner.client.expect(
    'POST',
    '/v1/admins',
    { email: `bench-admin@${BENCH_ADMIN_DOMAIN}`, name: 'Bench Administrator' },
    201,
  );
  const created = await partner.client.expect(
    'POST',
    '/v1/transfers',
    {
      rail: 'mobile_money',
      destination: TRANSFER_DESTINATION,
      amount: { currency: 'KES', value: TRANSFER_KES },
      idempotencyKey: `bench-template-${randomUUID()}`,
    },
    202,
  );
  const takenKes = new Big(created.amount.value).plus(created.fee.value);
  if (takenKes.gt(KES_PER_TRANSFER_FUNDED))
    throw new Error(
      `a transfer takes ${takenKes.toFixed(2)} KES with its fee, the bench funds ${KES_PER_TRANSFER_FUNDED} per transfer`,
    );
  const outbox = { sandbox: { outbox: () => partner.client.expect('GET', '/v1/sandbox/outbox', undefined, 200) } };
  const code = await sandboxCode(outbox, created.id);
  await partner.client.expect('POST', `/v1/confirmations/${created.confirmation.id}`, { code }, 200);
  await endedAndDelivered(ctx, created.id, 'transfer.settled');
  return withDatabase(ctx.description.postgres.urlTemplate, 'svc_payouts', async (client) => {
    const { rows } = await client.query(
      'SELECT confirmation_id::text AS "confirmationId", to_json(created_at) #>> \'{}\' AS "createdAtIso" FROM transfers WHERE transfer_id = $1',
      [created.id],
    );
    return transferTemplate({ transferId: created.id, ...rows[0] });
  });
}

/** Resolves once the order's or transfer's final webhook, `finalEvent`, reached the receiver and every delivery about it is marked delivered. */
async function endedAndDelivered(ctx, subjectId, finalEvent) {
  const missing = await ctx.receiver.waitEnded([subjectId], ORDER_END_WAIT_MAX_MS);
  if (missing.length > 0 || ctx.receiver.endings([subjectId])[finalEvent] !== 1)
    throw new Error(`the template ${subjectId} did not reach ${finalEvent} with its webhook in time`);
  await waitDelivered(ctx.description.postgres.urlTemplate, subjectId);
}

/** Resolves once every delivery carrying the id is marked delivered. */
async function waitDelivered(urlTemplate, subjectId) {
  const deadline = Date.now() + DELIVERED_WAIT_MS;
  await withDatabase(urlTemplate, 'svc_webhook_delivery', async (client) => {
    for (;;) {
      const { rows } = await client.query(
        "SELECT count(*) FILTER (WHERE status <> 'delivered')::int AS open FROM webhook_deliveries WHERE strpos(body, $1) > 0",
        [subjectId],
      );
      if (rows[0].open === 0) return;
      if (Date.now() > deadline) throw new Error(`the deliveries of ${subjectId} were not marked delivered in time`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
}

/**
 * Clones `template` `records − 1` times over `spanMs` before it through `seeders`; resolves to
 * the seeding's row of the sizes table, with the tag and clone count for reading clones back.
 */
async function seedClones(ctx, template, { records, spanMs, what, span, seeders }) {
  const tag = `hist-${what.split(' ')[0]}-${template.kind}-${Date.now().toString(36)}`;
  const clones = records - 1;
  const seeded = await step(
    `${what}: ${clones.toLocaleString('en-US')} clones of a settled ${template.kind} over ${span}`,
    () =>
      seedHistory({
        urlTemplate: ctx.description.postgres.urlTemplate,
        databases: services.DATABASE_NAMES,
        template,
        count: clones,
        tag,
        spanMs,
        seeders,
        // Deliveries past their window are what retention leaves out: not written at all.
        windowsMs: new Map([[webhookDeliveries, stackDeliveryWindowMs(ctx)]]),
        log: ctx.log,
      }),
  );
  const { durationMs, rows, timings } = seeded;
  return { what, span, unit: `${template.kind}s`, count: records, durationMs, rows, timings, tag, clones };
}

/** Places a template order for `partner` and clones it `orders − 1` times over `spanMs` before it. */
async function seedPartner(ctx, partner, { orders, spanMs, what, span }) {
  const template = await templateOrder(ctx, partner);
  const seeding = await seedClones(ctx, template, { records: orders, spanMs, what, span, seeders: HISTORY_SEEDERS });
  const clone = cloneId(seeding.tag, 'order', Math.ceil(seeding.clones / 2));
  const read = await partner.client.get(`/v1/orders/${clone}`);
  if (read.status !== 200 || read.body.status !== 'settled')
    throw new Error(`seeded order ${clone} reads back ${read.status} ${JSON.stringify(read.body)}`);
  return seeding;
}

/** Places a template transfer for `partner` and clones it `transfers − 1` times over `spanMs` before it. */
async function seedTransfers(ctx, partner, { transfers, spanMs, what, span }) {
  const template = await templateTransfer(ctx, partner);
  const seeding = await seedClones(ctx, template, {
    records: transfers,
    spanMs,
    what,
    span,
    seeders: TRANSFER_SEEDERS,
  });
  return { ...seeding, templateId: template.transferId };
}

/**
 * Stops the run unless the seeded transfers are what the gateway answers: a clone reads back
 * settled, and the partner's list (newest first) is the template, then the newest clones in order.
 */
async function checkTransfersRead(partner, seeding) {
  const clone = cloneId(seeding.tag, 'transfer', Math.ceil(seeding.clones / 2));
  const read = await partner.client.get(`/v1/transfers/${clone}`);
  if (read.status !== 200 || read.body.status !== 'settled')
    throw new Error(`seeded transfer ${clone} reads back ${read.status} ${JSON.stringify(read.body)}`);
  const page = await partner.client.get(`/v1/transfers?limit=${PAGE_SIZE}`);
  const expected = [
    seeding.templateId,
    ...Array.from({ length: Math.min(PAGE_SIZE, seeding.count) - 1 }, (_, index) =>
      cloneId(seeding.tag, 'transfer', seeding.clones - index),
    ),
  ];
  const listed = Array.isArray(page.body) ? page.body.map((transfer) => transfer.id) : [];
  if (page.status !== 200 || listed.join() !== expected.join())
    throw new Error(
      `GET /v1/transfers answered ${page.status} with ${listed.length} transfers, not the template and the newest clones in order`,
    );
  return `seeded transfer ${clone} reads back settled; GET /v1/transfers lists the newest ${listed.length} in order`;
}

/** A partner as the ops tool creates one (webhook endpoint and sandbox rate set, never funded), cloned. */
async function seedPartnerClones(ctx, sizes) {
  const template = await ctx.newPartner('History partner template', { fundingKes: [] });
  const span = `${sizes.backgroundSpanDays} days`;
  const seeded = await step(`${sizes.partners.toLocaleString('en-US')} partners cloned over ${span}`, () =>
    seedPartners({
      urlTemplate: ctx.description.postgres.urlTemplate,
      databases: services.DATABASE_NAMES,
      partnerId: template.partnerId,
      count: sizes.partners,
      tag: `hist-partner-${Date.now().toString(36)}`,
      spanMs: sizes.backgroundSpanDays * DAY_MS,
      log: ctx.log,
    }),
  );
  return {
    what: 'partners',
    unit: 'partners',
    span,
    count: sizes.partners,
    durationMs: seeded.durationMs,
    rows: seeded.rows,
    timings: seeded.timings,
  };
}

function memoryRows(processes) {
  return services.SERVICE_NAMES.map((name) => {
    const kiB = processes[name] ? rssKiB(processes[name]) : null;
    return {
      section: MEMORY_SECTION,
      figure: `${name} after the history run`,
      value: kiB === null ? null : Math.round(kiB / MIB),
    };
  });
}

/**
 * Every seeding, partners and orders first, the background partner's transfers last (the
 * databases' size taken before, between and after, so each gets its disk of its own).
 * Resolves to { background, hot, seedings, bytes: { before, afterOrders, afterTransfers } }.
 */
async function seedAll(ctx, sizes) {
  const urlTemplate = ctx.description.postgres.urlTemplate;
  const before = await databasesBytes(urlTemplate);
  const background = await ctx.newPartner('History background', {
    fundingKes: fundingFor(sizes.backgroundOrders, sizes.backgroundTransfers),
  });
  const hot = await ctx.newPartner('History hot', {
    sockets: ctx.options.orderClients,
    fundingKes: fundingFor(sizes.hotOrders),
  });
  const backgroundSpan = { spanMs: sizes.backgroundSpanDays * DAY_MS, span: `${sizes.backgroundSpanDays} days` };
  const seedings = [await seedPartnerClones(ctx, sizes)];
  seedings.push(
    await seedPartner(ctx, background, {
      orders: sizes.backgroundOrders,
      what: 'background partner',
      ...backgroundSpan,
    }),
  );
  seedings.push(
    await seedPartner(ctx, hot, {
      orders: sizes.hotOrders,
      spanMs: HOT_SPAN_MS,
      what: 'hot partner',
      span: '23 hours',
    }),
  );
  const afterOrders = await databasesBytes(urlTemplate);
  seedings.push(
    await seedTransfers(ctx, background, {
      transfers: sizes.backgroundTransfers,
      what: 'background partner transfers',
      ...backgroundSpan,
    }),
  );
  const afterTransfers = await databasesBytes(urlTemplate);
  return { background, hot, seedings, bytes: { before, afterOrders, afterTransfers } };
}

export async function historySection(ctx) {
  const scale = ctx.options.history;
  const sizes = historySizes(scale.factor);
  const urlTemplate = ctx.description.postgres.urlTemplate;
  const { orderClients, orderDurationS } = ctx.options;
  ctx.log(
    `  history ${scale.name}: ${sizes.partners.toLocaleString('en-US')} partners, ${sizes.backgroundOrders.toLocaleString('en-US')} background orders ` +
      `and ${sizes.backgroundTransfers.toLocaleString('en-US')} transfers over ${sizes.backgroundSpanDays} days, ` +
      `${sizes.hotOrders.toLocaleString('en-US')} in the hot partner's 24-hour window`,
  );

  const emptyPartner = await ctx.newPartner('History empty', { sockets: orderClients });
  const empty = await measuredRun(ctx, emptyPartner, `${orderClients} clients, ${orderDurationS} s, empty database`);

  const { background, hot, seedings, bytes } = await seedAll(ctx, sizes);
  const check = await step('ledger reconciles after seeding', () =>
    runOps(ctx.stackFile, ['ledger', 'check'], { exitCodes: [0, 1], timeoutMs: LEDGER_CHECK_TIMEOUT_MS }),
  );
  if (!check.ok)
    throw new Error(
      `the ledger does not reconcile after seeding: ${JSON.stringify(check.checks?.filter((c) => !c.ok) ?? check)}`,
    );
  // The step's line is the check's answer (a clone read back, the list page in order).
  const transfersRead = await step('seeded transfers read back through the gateway', () =>
    checkTransfersRead(background, seedings.at(-1)),
  );
  const retention = await step('retention caught up with the seeded history', () => retentionCaughtUp(ctx));
  ctx.log(
    `  retention: ${(retention.durationMs / 1000).toFixed(0)} s, due at start ${JSON.stringify(retention.dueAtStart)}`,
  );
  const tables = await step('table and index sizes after seeding', () => tableSizes(urlTemplate));

  const label = `${sizes.hotOrders.toLocaleString('en-US')} earlier orders of the partner, ${(sizes.backgroundOrders + sizes.hotOrders).toLocaleString('en-US')} in all`;
  // The rows-read baseline: the same loop for a partner with no earlier orders, on the seeded database.
  const freshPartner = await ctx.newPartner('History fresh', { sockets: orderClients });
  const fresh = await measuredClosedLoop(
    ctx,
    freshPartner,
    `${orderClients} clients, ${orderDurationS} s, no earlier orders of the partner, seeded database`,
  );
  const seeded = await measuredRun(ctx, hot, `${orderClients} clients, ${orderDurationS} s, ${label}`);
  const memory = memoryRows(ctx.processes);

  ctx.rows.push(...historyComparisonRows({ seeded, empty, fresh, label, section: SECTION }));
  ctx.rows.push(...memory);
  ctx.rows.push(
    ...seedingRows({
      seedings,
      sizes: tables,
      growthBytes: bytes.afterOrders - bytes.before,
      ordersSeeded: sizes.backgroundOrders + sizes.hotOrders,
      transfers: { growthBytes: bytes.afterTransfers - bytes.afterOrders, count: sizes.backgroundTransfers },
      section: SIZES_SECTION,
    }),
  );
  const compact = (run) => ({ load: withoutIds(run.load), cost: run.cost, reads: run.reads });
  return {
    scale,
    sizes,
    seedings,
    retention,
    tableSizes: tables,
    databasesBytes: bytes,
    transfersRead,
    empty: compact(empty),
    fresh: { load: withoutIds(fresh.load), cost: fresh.cost },
    seeded: compact(seeded),
    memoryAfterMiB: Object.fromEntries(memory.map((row) => [row.figure.split(' ')[0], row.value])),
  };
}
