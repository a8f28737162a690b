// Seeds a partner's history directly in PostgreSQL, through the services' own tables:
// `count` clones of one real, finished record of that partner (a settled order, a settled
// transfer: the template, made by orderTemplate or transferTemplate), bench/lib/clone-sql.js
// says how a row is cloned. One module per service table set (SEEDERS, TRANSFER_SEEDERS);
// each declares the tables it clones. Before anything is written:
//   - every seeder plans its tables: the tables and columns it relies on exist, the
//     template rows are there, no unique index would repeat;
//   - coverage: every table of every service database is searched for the template's ids,
//     and each one holding them must be cloned by a seeder (with as many template rows)
//     or be listed in NOT_CLONED with the reason. A table a change adds to the order or
//     transfer path (the daily cap moving to another service, say) therefore stops the
//     seeding with its name, instead of a history the code would not see.
// Each database's clones are written in one transaction (the ledger's accounts locked).
import { cloneIdSql, firstCloneWithin, identifier, timeShiftSql } from '../lib/clone-sql.js';
import { planClone, SeedSchemaError } from './clone.mjs';
import { ledgerEntries } from './ledger-entries.mjs';
import { notifierMessages } from './notifier-messages.mjs';
import { payoutsTransfers } from './payouts-transfers.mjs';
import { tradingCapUsages } from './trading-cap-usages.mjs';
import { tradingOrders } from './trading-orders.mjs';
import { analyseCloned, cloneInChunks, withSeeding } from './seeding.mjs';
import { webhookDeliveries } from './webhook-deliveries.mjs';

export { SeedSchemaError };

/** An order's, in dependency order within a database (entries before the holds and postings that reference them). */
export const SEEDERS = [tradingOrders, tradingCapUsages, ledgerEntries];
/** The history bench's: an order's webhook deliveries and attempts too (the events feed reads them). */
export const HISTORY_SEEDERS = [...SEEDERS, webhookDeliveries];
/** A transfer's: payouts' own rows, its daily-cap usage, its hold and entry, its code's message, its webhooks. */
export const TRANSFER_SEEDERS = [
  payoutsTransfers,
  tradingCapUsages,
  ledgerEntries,
  notifierMessages,
  webhookDeliveries,
];

/**
 * A settled order as seedHistory clones it: `subjectId` is the id the other services know it
 * by (the ledger's hold, the cap usage, the events' bodies), `ids` every id of its own.
 */
export function orderTemplate({ orderId, quoteId, createdAtIso }) {
  const ids = [
    { id: orderId, role: 'order' },
    { id: quoteId, role: 'quote' },
  ];
  return { kind: 'order', subjectId: orderId, ids, createdAtIso, orderId, quoteId };
}

/** A settled transfer as seedHistory clones it: its id (the hold's, the usage's, the instruction's) and its confirmation's. */
export function transferTemplate({ transferId, confirmationId, createdAtIso }) {
  const ids = [
    { id: transferId, role: 'transfer' },
    { id: confirmationId, role: 'confirmation' },
  ];
  return { kind: 'transfer', subjectId: transferId, ids, createdAtIso, transferId };
}

/** Tables that hold the template's ids and are deliberately not cloned (unless a seeder given clones them), with why. */
export const NOT_CLONED = Object.freeze({
  'svc_trading.outbox': 'events already published: the relay reads only unpublished rows',
  'svc_ledger.outbox': 'events already published: the relay reads only unpublished rows',
  'svc_payouts.outbox': 'events already published: the relay reads only unpublished rows',
  'svc_webhook_delivery.webhook_deliveries':
    'deliveries of past events: read per event, never by the order or transfer path',
  'svc_webhook_delivery.webhook_delivery_attempts':
    'attempts of past deliveries: read per delivery, never by the order or transfer path',
});

/**
 * Tables that hold the template's ids and that the database writes itself as the
 * clones go in (triggers), with who checks them: a seeder must not clone these too.
 */
export const WRITTEN_BY_TRIGGERS = Object.freeze({
  'svc_ledger.statement_lines':
    "the ledger's posting trigger appends one line per posting to a partner account; the ledger seeder writes the clones' set-based and checks them",
});

const COUNT_MAX = 10_000_000;

/** Rows of each table of `client`'s database that mention any of the ids: { table: n } for n > 0. */
async function rowsMentioning(client, ids) {
  // A partition's rows are counted once, through its partitioned parent (what the seeders clone into).
  const { rows: tables } = await client.query(
    `SELECT t.tablename FROM pg_tables t JOIN pg_class c ON c.oid = format('%I.%I', t.schemaname, t.tablename)::regclass
      WHERE t.schemaname = 'public' AND NOT c.relispartition ORDER BY t.tablename`,
  );
  const condition = ids.map((_, index) => `strpos(x::text, $${index + 1}) > 0`).join(' OR ');
  const found = {};
  for (const { tablename } of tables) {
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM ${identifier(tablename)} x WHERE ${condition}`,
      ids.map(({ id }) => id),
    );
    if (rows[0].n > 0) found[tablename] = rows[0].n;
  }
  return found;
}

/** Every table holding the template's ids is cloned with as many template rows, or listed in NOT_CLONED. */
async function assertCoverage(clients, template, ids, plans) {
  const problems = [];
  for (const [database, client] of clients) {
    for (const [table, rows] of Object.entries(await rowsMentioning(client, ids))) {
      const name = `${database}.${table}`;
      const plan = plans.find((candidate) => candidate.database === database && candidate.table === table);
      if (!plan && (NOT_CLONED[name] || WRITTEN_BY_TRIGGERS[name])) continue;
      if (!plan) problems.push(`${name} holds ${rows} row(s) of the template ${template.kind} and no seeder clones it`);
      else if (plan.templateRows !== rows)
        problems.push(
          `${name} holds ${rows} row(s) of the template ${template.kind}, the seeder clones ${plan.templateRows}`,
        );
    }
  }
  if (problems.length > 0) throw new SeedSchemaError(problems.join('; '));
}

/**
 * Seeds `count` clones of `template` (orderTemplate, transferTemplate) spread evenly over
 * `spanMs` before the template. `databases`: every service database (for the coverage check);
 * `seeders`: SEEDERS, HISTORY_SEEDERS to clone an order's webhook deliveries as well, or
 * TRANSFER_SEEDERS for a transfer.
 * `windowsMs`: Map(seeder → its tables' retention window): that seeder writes only the clones
 * inside it, as the tables hold after retention has run (writing the older ones would only
 * have retention delete them again, in batches, before anything can be measured).
 * Resolves to { count, rows: { 'db.table': n }, timings: { step: ms }, durationMs }.
 */
export async function seedHistory({
  urlTemplate,
  databases,
  template,
  count,
  tag,
  spanMs,
  seeders = SEEDERS,
  windowsMs = new Map(),
  log = () => {},
}) {
  if (!Number.isInteger(count) || count < 1 || count > COUNT_MAX) throw new Error(`count must be 1..${COUNT_MAX}`);
  const startedAt = Date.now();
  return withSeeding(urlTemplate, databases, async ({ clients, begin, commit }) => {
    const anchorMs = Date.parse(template.createdAtIso);
    const stepMs = Math.max(1, Math.floor(spanMs / count));
    const endMs = anchorMs - stepMs;
    const shift = timeShiftSql({ endMs, stepMs, count, anchorIso: template.createdAtIso });
    const nowMs = Date.now();
    const firstCloneOf = (seeder) =>
      windowsMs.has(seeder)
        ? firstCloneWithin({ count, endMs, stepMs, windowMs: windowsMs.get(seeder), nowMs })
        : undefined;
    const applicable = [];
    for (const seeder of seeders) {
      const client = clients.get(seeder.database);
      if (!client) throw new Error(`no connection to ${seeder.database}`);
      if (seeder.applies && !(await seeder.applies(client, template))) {
        if (seeder.required)
          throw new SeedSchemaError(`${seeder.name}: the template ${template.kind} is not where this seeder looks`);
        log(`  ${seeder.name}: not in this schema, skipped (the coverage check finds where its rows went)`);
        continue;
      }
      applicable.push(seeder);
    }
    const ids = [...template.ids];
    for (const seeder of applicable)
      if (seeder.extraIds) ids.push(...(await seeder.extraIds(clients.get(seeder.database), template)));
    const withSql = ids.map(({ id, role }) => ({ id, role, sql: cloneIdSql(tag, role) }));

    const plans = [];
    const prepared = new Map();
    for (const seeder of applicable) {
      const client = clients.get(seeder.database);
      await begin(seeder.database);
      const state = seeder.prepare ? await seeder.prepare(client, template, ids, tag) : undefined;
      prepared.set(seeder, state);
      for (const spec of await seeder.plans(template, tag, state)) {
        plans.push({
          ...(await planClone(client, { ...spec, database: seeder.database }, { ids: withSql, shift })),
          seeder,
          firstClone: firstCloneOf(seeder),
        });
      }
    }
    await assertCoverage(clients, template, ids, plans);

    const timings = {};
    const rows = await cloneInChunks(clients, plans, count, {
      what: `${template.kind}s`,
      log,
      timings,
      afterChunk: async (first, last, timed) => {
        // State the clones move (account balances) follows each chunk, so the next chunk's triggers see it.
        for (const seeder of applicable)
          if (seeder.afterChunk)
            await seeder.afterChunk(clients.get(seeder.database), template, first, last, prepared.get(seeder), timed);
      },
    });
    const finishedAt = Date.now();
    for (const seeder of applicable)
      if (seeder.finish) await seeder.finish(clients.get(seeder.database), template, count, prepared.get(seeder));
    timings['checks before the commit'] = Date.now() - finishedAt;
    const commitAt = Date.now();
    await commit();
    timings.commit = Date.now() - commitAt;
    await analyseCloned(clients, plans, timings);
    log(`  seeding milliseconds: ${JSON.stringify(timings)}`);
    return { count, rows, timings, durationMs: Date.now() - startedAt };
  });
}
