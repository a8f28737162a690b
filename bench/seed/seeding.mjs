// What every seeding of the service databases shares (seedHistory, seedPartners): a
// connection per database, each database's clones written in one transaction of its own
// (synchronous_commit off: a crash loses only the seeding, which is run again), the clones
// inserted in chunks, the tables analysed once committed; on failure every open transaction
// is rolled back, and the connections always end.
import { createRequire } from 'node:module';
import { identifier } from '../lib/clone-sql.js';
import { insertClones } from './clone.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

/** Clones per INSERT: bounds a statement's memory and shows progress. */
export const CLONE_CHUNK = 20_000;
const STATEMENT_TIMEOUT_MS = 10 * 60_000;

/**
 * Runs `work(session)` with a connection to each of `databases` (`session.clients`, by name);
 * `session.begin(database)` opens that database's transaction (once), `session.commit()`
 * commits every open one.
 */
export async function withSeeding(urlTemplate, databases, work) {
  const clients = new Map();
  const open = new Set();
  try {
    for (const database of databases) {
      const client = new Client({
        connectionString: urlTemplate.replace('{database}', database),
        statement_timeout: STATEMENT_TIMEOUT_MS,
      });
      await client.connect();
      clients.set(database, client);
    }
    return await work({
      clients,
      async begin(database) {
        if (open.has(database)) return;
        await clients.get(database).query('BEGIN');
        await clients.get(database).query('SET LOCAL synchronous_commit = off');
        open.add(database);
      },
      async commit() {
        for (const database of open) await clients.get(database).query('COMMIT');
        open.clear();
      },
    });
  } finally {
    for (const database of open)
      await clients
        .get(database)
        .query('ROLLBACK')
        .catch(() => {});
    await Promise.all([...clients.values()].map((client) => client.end().catch(() => {})));
  }
}

/**
 * Inserts clones 1…`count` of every plan, CLONE_CHUNK at a time, plan after plan; after each
 * chunk `afterChunk(first, last, timed)` (state the next chunk's triggers must see; `timed(name,
 * work)` adds work's milliseconds to `timings[name]`), then a progress line naming `what` was
 * cloned. Resolves to the rows written, { 'db.table': n }; `timings` gains each table's insert
 * milliseconds, { 'db.table': ms }.
 */
export async function cloneInChunks(clients, plans, count, { what, log, afterChunk = async () => {}, timings = {} }) {
  const rows = {};
  const timed = async (name, work) => {
    const startedAt = Date.now();
    try {
      return await work();
    } finally {
      timings[name] = (timings[name] ?? 0) + (Date.now() - startedAt);
    }
  };
  for (let first = 1; first <= count; first += CLONE_CHUNK) {
    const last = Math.min(count, first + CLONE_CHUNK - 1);
    for (const plan of plans) {
      const key = `${plan.database}.${plan.table}`;
      const written = await timed(key, () => insertClones(clients.get(plan.database), plan, first, last));
      rows[key] = (rows[key] ?? 0) + written;
    }
    await afterChunk(first, last, timed);
    log(`  cloned ${last.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} ${what}`);
  }
  return rows;
}

/** After the commit: the planner then knows the cloned tables' new sizes, as autovacuum would tell it in time. */
export async function analyseCloned(clients, plans, timings = {}) {
  for (const plan of plans) {
    const startedAt = Date.now();
    await clients.get(plan.database).query(`VACUUM (ANALYZE) ${identifier(plan.table)}`);
    const name = `VACUUM (ANALYZE) ${plan.database}.${plan.table}`;
    timings[name] = (timings[name] ?? 0) + (Date.now() - startedAt);
  }
}
