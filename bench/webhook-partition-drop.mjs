// `node bench/webhook-partition-drop.mjs`: what dropping a week of webhook deliveries costs the
// writers, before (a DEFAULT partition beside the weeks: one transaction under ACCESS EXCLUSIVE)
// and after (no DEFAULT partition: DETACH PARTITION … CONCURRENTLY, then DROP), and what the
// bounded-partitions migration costs on rows recorded before the partitioning. Counts, not rates,
// so that a loaded machine changes little: while a reader keeps one transaction open on the
// parent for READER_HOLD_MS (a long read), the service's own insert and claim run in a loop on
// another connection with `lock_timeout` WRITER_LOCK_TIMEOUT; printed: statements that went
// through, statements refused for a lock, the longest one. Needs a running test stack
// (TEST_STACK_SLOT honoured; `npm test` starts one), works in scratch databases of its own.
// Built packages are used (`npm run build` first). Not part of npm test.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createScratchDatabase } = require('../libs/testing/dist/index.js');
const { createWeek, dropWeek, partitionRuleOf, WEEK_MS, weekStartMs } = require('../libs/persistence/dist/index.js');
const { webhookDeliveryDataSource } = require('../services/webhook-delivery/dist/persistence/data-source.js');
const { DeliveriesRepository } = require('../services/webhook-delivery/dist/persistence/deliveries.repository.js');
const { webhookDeliveryRetentionRules } = require('../services/webhook-delivery/dist/workers/retention.worker.js');

const READER_HOLD_MS = 1_000;
const WRITER_LOCK_TIMEOUT = '500ms';
const LEGACY_ROWS = Number(process.env.LEGACY_ROWS ?? 20_000);
const SEED_CHUNK = 2_000;

const [, weekly] = webhookDeliveryRetentionRules({ deliveryRetentionDays: 60, partitionsAheadWeeks: 4 });
const rule = partitionRuleOf(weekly, weekly.partitionedByWeek);

async function migrated(prefix, migrations) {
  const scratch = await createScratchDatabase(prefix);
  const options = webhookDeliveryDataSource(scratch.url).options;
  const { DataSource } = require('typeorm');
  const db = new DataSource({ ...options, migrations: migrations(options.migrations) });
  await db.initialize();
  await db.runMigrations({ transaction: 'each' });
  return { scratch, db };
}

async function hasDefault(db) {
  const [row] = await db.query(
    `SELECT count(*)::int AS n FROM pg_class WHERE relname = 'deliveries' AND pg_get_expr(relpartbound, oid) = 'DEFAULT'`,
  );
  return row.n > 0;
}

/** One week past the window dropped while a reader holds the parent and a writer inserts and claims. */
async function dropUnderLoad(db) {
  const start = weekStartMs(Date.now()) - 12 * WEEK_MS;
  if (!(await hasDefault(db))) {
    // As if partitioned twenty weeks ago: the (empty) tables from before end there.
    const cutover = new Date(start - 8 * WEEK_MS).toISOString();
    for (const [parent, table] of [
      ['webhook_deliveries', 'deliveries'],
      ['webhook_delivery_attempts', 'delivery_attempts'],
    ]) {
      await db.query(`ALTER TABLE ${parent} DETACH PARTITION ${table}`);
      await db.query(`ALTER TABLE ${parent} ATTACH PARTITION ${table} FOR VALUES FROM (MINVALUE) TO ('${cutover}')`);
    }
  }
  await createWeek(db, rule, start);
  const partnerId = randomUUID();
  await db.query(
    `INSERT INTO endpoints (partner_id, url, secret_sealed) VALUES ($1, 'https://example.test/hook', 's')`,
    [partnerId],
  );
  const reader = db.createQueryRunner();
  await reader.startTransaction();
  await reader.query('SELECT count(*) FROM webhook_deliveries');
  const writer = db.createQueryRunner();
  await writer.query(`SET lock_timeout = '${WRITER_LOCK_TIMEOUT}'`);
  // Its hot statements are named prepared statements sent to the pool: here, to the writer's session.
  const repository = new DeliveriesRepository({
    query: (sql, parameters) => writer.query(sql, parameters),
    driver: { master: { query: async ({ text, values }) => ({ rows: await writer.query(text, values) }) } },
  });
  let settled = false;
  const began = Date.now();
  const drop = dropWeek(db, rule, start).then(
    (dropped) => ({ dropped, ms: Date.now() - began }),
    (error) => ({ dropped: false, ms: Date.now() - began, error: error.message }),
  );
  drop.finally(() => (settled = true));
  const release = new Promise((resolve) => setTimeout(resolve, READER_HOLD_MS)).then(() => reader.commitTransaction());
  const figures = { through: 0, refused: 0, longestMs: 0 };
  while (!settled) {
    for (const statement of [
      () =>
        repository.insertMany([
          {
            deliveryId: randomUUID(),
            eventId: randomUUID(),
            partnerId,
            eventType: 'order.settled',
            body: '{}',
            traceparent: null,
            createdAt: new Date(),
          },
        ]),
      () => repository.claimDue({ limit: 10, endpointInFlightMax: 10_000, leaseMs: 30_000 }),
    ]) {
      const t0 = Date.now();
      try {
        await statement();
        figures.through += 1;
      } catch (error) {
        if (error.code !== '55P03') throw error;
        figures.refused += 1;
      }
      figures.longestMs = Math.max(figures.longestMs, Date.now() - t0);
    }
  }
  await release;
  await reader.release();
  await writer.release();
  return { ...figures, drop: await drop };
}

async function main() {
  const results = {};
  // After: every migration (no DEFAULT partition).
  {
    const { scratch, db } = await migrated('bench_drop_after', (all) => all);
    results.after = await dropUnderLoad(db);
    await db.destroy();
    await scratch.drop();
  }
  // Before: as on main, the default partitions still there (the last migration left out).
  {
    const { scratch, db } = await migrated('bench_drop_before', (all) => all.slice(0, -1));
    results.before = await dropUnderLoad(db);
    // The last migration on LEGACY_ROWS deliveries and attempts recorded before the partitioning.
    console.log(JSON.stringify({ before: results.before, after: results.after }));
    // In statements of SEED_CHUNK rows: the data source's statement timeout bounds each.
    for (let first = 1; first <= LEGACY_ROWS; first += SEED_CHUNK) {
      await db.query(
        `WITH d AS (
           INSERT INTO deliveries (delivery_id, event_id, partner_id, event_type, body, status, created_at, delivered_at, feed_position)
           SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'order.settled', repeat('x', 400), 'delivered',
                  date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - (i || ' minutes')::interval, now(), NULL
             FROM generate_series($1::int, $2::int) i
           RETURNING delivery_id, created_at)
         INSERT INTO delivery_attempts (id, delivery_id, attempt_number, started_at, latency_ms, status_code)
         SELECT gen_random_uuid(), delivery_id, 1, created_at, 10, 200 FROM d`,
        [first, Math.min(LEGACY_ROWS, first + SEED_CHUNK - 1)],
      );
    }
    const { DataSource } = require('typeorm');
    const options = webhookDeliveryDataSource(scratch.url).options;
    const all = new DataSource({ ...options, logging: false });
    await all.initialize();
    const t0 = Date.now();
    await all.runMigrations({ transaction: 'each' });
    results.migration = { rows: LEGACY_ROWS, ms: Date.now() - t0 };
    await all.destroy();
    await db.destroy();
    await scratch.drop();
  }
  console.log(JSON.stringify(results, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
