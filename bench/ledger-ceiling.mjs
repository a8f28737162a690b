// The ledger figures' ceiling: pgbench on the same PostgreSQL, running the ledger entry's
// shape with nothing else around it: one transaction that moves three account rows (the
// picked account, then two rows every transaction shares, like treasury and fee_revenue)
// and inserts three postings. Run against one hot account and against 1,000 accounts,
// with the ledger bench's calls in flight as clients. Used by bench/run.mjs (ledger section).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { adminQuery, assertPgbench, runPgbench } from './lib/pgbench.mjs';
import { parsePgbench } from './lib/stats.js';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const DATABASE = 'bench_ledger_ceiling';
const SPREAD_ACCOUNTS = 1_000;
/** Rows 1 and 2 are the shared rows; picked accounts start at 3. */
const FIRST_PICKED_ID = 3;
const THREADS = 2;

const SETUP_SQL = `
  CREATE TABLE accounts (id integer PRIMARY KEY, posted numeric(20, 2) NOT NULL, held numeric(20, 2) NOT NULL, version bigint NOT NULL);
  INSERT INTO accounts SELECT id, 1000000000.00, 0, 0 FROM generate_series(1, ${FIRST_PICKED_ID + SPREAD_ACCOUNTS}) AS id;
  CREATE TABLE postings (id bigserial PRIMARY KEY, account_id integer NOT NULL, amount numeric(20, 2) NOT NULL, created_at timestamptz NOT NULL DEFAULT now());`;

function entryScript(pick) {
  return `${pick}
BEGIN;
UPDATE accounts SET posted = posted - 10.00, version = version + 1 WHERE id = :aid;
UPDATE accounts SET posted = posted + 9.90, version = version + 1 WHERE id = 1;
UPDATE accounts SET posted = posted + 0.10, version = version + 1 WHERE id = 2;
INSERT INTO postings (account_id, amount) VALUES (:aid, -10.00), (1, 9.90), (2, 0.10);
END;
`;
}

const SCRIPTS = {
  hot: entryScript(`\\set aid ${FIRST_PICKED_ID}`),
  spread: entryScript(`\\set aid random(${FIRST_PICKED_ID}, ${FIRST_PICKED_ID + SPREAD_ACCOUNTS - 1})`),
};

/** tps and latency average of each shape (hot, spread), `clients` clients for `durationS` seconds each. */
export async function ledgerCeiling(urlTemplate, clients, durationS) {
  assertPgbench();
  await adminQuery(urlTemplate, `DROP DATABASE IF EXISTS ${DATABASE}`);
  await adminQuery(urlTemplate, `CREATE DATABASE ${DATABASE}`);
  const url = urlTemplate.replace('{database}', DATABASE);
  const folder = mkdtempSync(path.join(os.tmpdir(), 'ledger-ceiling-'));
  try {
    const setup = new Client({ connectionString: url });
    await setup.connect();
    await setup.query(SETUP_SQL).finally(() => setup.end());
    const result = {};
    for (const [shape, script] of Object.entries(SCRIPTS)) {
      const file = path.join(folder, `${shape}.sql`);
      writeFileSync(file, script);
      const output = await runPgbench([
        '-n',
        '-f',
        file,
        '-c',
        String(clients),
        '-j',
        String(THREADS),
        '-T',
        String(durationS),
        '-M',
        'prepared',
        url,
      ]);
      result[shape] = parsePgbench(output);
    }
    return {
      clients,
      durationS,
      spreadAccounts: SPREAD_ACCOUNTS,
      script: 'one transaction: 3 account rows updated, 3 postings inserted',
      ...result,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await adminQuery(urlTemplate, `DROP DATABASE IF EXISTS ${DATABASE}`).catch(() => {});
  }
}
