// What one daily-cap reservation reads with 100,000 open usages of its partner: the window
// sum the reservation used to run, then trading's own reservation code (built, from
// services/trading/dist) at the seeding's end, one minute later and 62 minutes later (when
// the two oldest minutes of usages leave the window), then a release of one of the usages and
// the limits read (GetPartnerLimits' used amount). For each: the plan of every statement
// (EXPLAIN ANALYZE inside a savepoint that is rolled back, in a transaction of its own that is
// rolled back too), then, in a second transaction that commits, the rows each table gave
// (pg_stat_xact_user_tables: sequential + fetched by index, the triggers' statements
// included) and its sequential scans.
//
//   npm run build && node bench/cap-window-explain.mjs [stack file]     (default .stack/stack.json)
//
// Uses a database of its own on the stack's PostgreSQL (bench_cap_window, dropped first and
// left behind for inspection); 2,000 other partners make the tables the size the planner
// meets in production.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { adminQuery } from './lib/pgbench.mjs';

const require = createRequire(import.meta.url);
const { Big } = require('@platform/money');
const { tradingDataSource } = require('../services/trading/dist/persistence/data-source.js');
const {
  reserveInTransaction,
} = require('../services/trading/dist/usecases/reserve-daily-cap/reserve-daily-cap.usecase.js');
const { CapUsagesRepository } = require('../services/trading/dist/persistence/cap-usages.repository.js');
const capUsages = new CapUsagesRepository();
const { capWindowStart } = require('../services/trading/dist/domain/cap-window.js');

const DATABASE = 'bench_cap_window';
const USAGES = 100_000;
const OTHER_PARTNERS = 2_000;
const SPAN_MS = 23 * 60 * 60 * 1000;
const PARTNER_ID = '0c0ffee0-0000-4000-8000-000000000001';
const TABLES = ['partner_profiles', 'cap_windows', 'cap_usages', 'cap_usage_buckets'];
const READS_SQL = `SELECT relname AS "table", seq_scan AS "seqScans", idx_scan AS "indexScans", coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS rows
                     FROM pg_stat_xact_user_tables WHERE relname = ANY($1)`;
const OLD_WINDOW_SUM_SQL = `SELECT coalesce(sum(amount_kes), 0)::text AS total FROM cap_usages
  WHERE partner_id = $1 AND released_at IS NULL AND created_at > $2::timestamptz - make_interval(secs => $3::double precision / 1000)`;

async function seed(db, endAt) {
  await db.query(
    `INSERT INTO partner_profiles (partner_id, status, buy_mode, sell_mode, fee_bps, fee_flat_kes, per_order_cap_kes, daily_cap_kes)
     SELECT gen_random_uuid(), 'active', 'debit_first', 'deposit', 50, '0.00', 1000000.00, 100000000.00 FROM generate_series(1, ${OTHER_PARTNERS})
     UNION ALL SELECT $1, 'active', 'debit_first', 'deposit', 50, '0.00', 1000000.00, 100000000.00`,
    [PARTNER_ID],
  );
  await db.query(
    `INSERT INTO cap_windows (partner_id, open_kes, counted_from) SELECT partner_id, 0, $1 FROM partner_profiles WHERE partner_id <> $2`,
    [new Date(endAt.getTime() - 24 * 3_600_000), PARTNER_ID],
  );
  // The bench's spacing: 100,000 usages of 100.00 KES, evenly over the 23 hours before endAt.
  await db.query(
    `INSERT INTO cap_usages (usage_id, partner_id, source, amount_kes, given_currency, given_amount, created_at)
     SELECT gen_random_uuid(), $1, 'order', 100.00, 'KES', 100.00, $2::timestamptz - i * ($3::double precision * interval '1 millisecond')
       FROM generate_series(1, ${USAGES}) AS i`,
    [PARTNER_ID, endAt, SPAN_MS / USAGES],
  );
  for (const table of TABLES) await db.query(`VACUUM (ANALYZE) ${table}`);
}

async function reads(manager, work) {
  const before = await manager.query(READS_SQL, [TABLES]);
  await work(manager);
  const after = await manager.query(READS_SQL, [TABLES]);
  return Object.fromEntries(
    after.map((row) => {
      const earlier = before.find((candidate) => candidate.table === row.table) ?? {
        rows: 0,
        seqScans: 0,
        indexScans: 0,
      };
      return [
        row.table,
        {
          rows: row.rows - earlier.rows,
          seqScans: row.seqScans - earlier.seqScans,
          indexScans: row.indexScans - earlier.indexScans,
        },
      ];
    }),
  );
}

/** A manager whose every statement is first run under EXPLAIN ANALYZE in a savepoint rolled back. */
function explainingManager(manager, plans) {
  return {
    async query(sql, parameters) {
      await manager.query('SAVEPOINT cap_explain');
      const plan = await manager.query(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ${sql}`,
        parameters,
      );
      await manager.query('ROLLBACK TO SAVEPOINT cap_explain');
      plans.push({ sql: sql.replace(/\s+/g, ' ').trim(), plan: plan.map((row) => row['QUERY PLAN']).join('\n') });
      return manager.query(sql, parameters);
    },
  };
}

class Rollback extends Error {}

/** The plans of `work`'s statements, in a transaction rolled back afterwards. */
async function explained(db, work) {
  const plans = [];
  await db
    .transaction(async (manager) => {
      await work(explainingManager(manager, plans));
      throw new Rollback();
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error;
    });
  return plans;
}

function printPlans(plans) {
  for (const { sql, plan } of plans)
    console.log(`\n  > ${sql.length > 160 ? `${sql.slice(0, 157)}...` : sql}\n${plan.replace(/^/gm, '    ')}`);
}

function printReads(label, tableReads) {
  const total = Object.values(tableReads).reduce((sum, table) => sum + table.rows, 0);
  console.log(`\n${label}: ${total} rows read`);
  for (const [table, { rows, seqScans, indexScans }] of Object.entries(tableReads))
    console.log(
      `  ${table.padEnd(18)} ${String(rows).padStart(7)} rows, ${seqScans} sequential scans, ${indexScans} index scans`,
    );
}

async function main() {
  const stackFile = process.argv[2] ?? '.stack/stack.json';
  const urlTemplate = JSON.parse(readFileSync(stackFile, 'utf8')).postgres?.urlTemplate;
  if (!urlTemplate) throw new Error(`${stackFile} has no postgres.urlTemplate`);
  await adminQuery(urlTemplate, `DROP DATABASE IF EXISTS ${DATABASE}`);
  await adminQuery(urlTemplate, `CREATE DATABASE ${DATABASE}`);
  const db = await tradingDataSource(urlTemplate.replace('{database}', DATABASE)).initialize();
  try {
    await db.runMigrations({ transaction: 'each' });
    const endAt = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    await seed(db, endAt);
    const [{ server_version: version }] = await db.query('SHOW server_version');
    console.log(
      `PostgreSQL ${version}; partner ${PARTNER_ID}: ${USAGES.toLocaleString('en-US')} open usages over the 23 hours before ${endAt.toISOString()}; ${OTHER_PARTNERS.toLocaleString('en-US')} other partners`,
    );

    const oldSum = (manager) => manager.query(OLD_WINDOW_SUM_SQL, [PARTNER_ID, endAt, 24 * 3_600_000]);
    console.log('\nBefore: the window sum every reservation ran under the partner lock');
    printPlans(await explained(db, oldSum));
    printReads('Before, the window sum alone', await db.transaction((manager) => reads(manager, oldSum)));

    for (const [label, offsetMs] of [
      ['at the seeding end', 0],
      ['one minute later', 60_000],
      ['62 minutes later (two minutes of usages leave)', 3_720_000],
    ]) {
      const now = new Date(endAt.getTime() + offsetMs);
      const reservation = (manager) =>
        reserveInTransaction(
          manager,
          {
            usageId: crypto.randomUUID(),
            partnerId: PARTNER_ID,
            source: 'order',
            given: { currency: 'KES', amount: new Big('100.00') },
          },
          new Big('100.00'),
          now,
        );
      console.log(`\nAfter: a reservation ${label} (${now.toISOString()})`);
      printPlans(await explained(db, reservation));
      printReads(
        `After, a reservation ${label}, its triggers included`,
        await db.transaction((manager) => reads(manager, reservation)),
      );
    }
    const [{ usageId }] = await db.query(
      'SELECT usage_id AS "usageId" FROM cap_usages WHERE partner_id = $1 ORDER BY created_at DESC LIMIT 1',
      [PARTNER_ID],
    );
    const release = (manager) => capUsages.release(manager, usageId);
    console.log('\nA release of the latest usage');
    printPlans(await explained(db, release));
    printReads('A release, its triggers included', await db.transaction((manager) => reads(manager, release)));
    const limits = (manager) =>
      capUsages.readOpenKes(manager, PARTNER_ID, capWindowStart(new Date(endAt.getTime() + 3_780_000)));
    console.log('\nThe limits read (KES in use) one minute after the last reservation');
    printPlans(await explained(db, limits));
    printReads('The limits read', await db.transaction((manager) => reads(manager, limits)));
  } finally {
    await db.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
