// pgbench on the stack's own PostgreSQL, in a scratch database dropped afterwards: the
// ceiling of the order path (tpcb-like) and of the ledger entry (bench/ledger-ceiling.mjs).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { POSTGRES_BIN_DIR } from '../../scripts/lib/postgres.mjs';
import { parsePgbench } from './stats.js';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

export const PGBENCH = path.join(POSTGRES_BIN_DIR, 'pgbench');
const PGBENCH_TIMEOUT_MS = 10 * 60_000;
const TPCB_DATABASE = 'bench_pgbench';
/** 10 branches, so the clients do not all queue on one branch row. */
const TPCB_SCALE = 10;
const THREADS = 2;

export function assertPgbench() {
  if (!existsSync(PGBENCH))
    throw new Error(
      `${PGBENCH} is missing: it ships with Debian's postgresql-15 (scripts/lib/infra.mjs installs postgresql)`,
    );
}

export function runPgbench(args) {
  return new Promise((resolve, reject) => {
    execFile(PGBENCH, args, { timeout: PGBENCH_TIMEOUT_MS }, (error, stdout, stderr) =>
      error ? reject(new Error(`pgbench: ${stderr || error.message}`)) : resolve(stdout),
    );
  });
}

/** Runs `sql` on the `postgres` database (CREATE / DROP DATABASE). */
export async function adminQuery(urlTemplate, sql) {
  const client = new Client({ connectionString: urlTemplate.replace('{database}', 'postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** pgbench tpcb-like, prepared statements, `clients` clients for durationS, on a fresh scale-10 database. */
export async function tpcbCeiling(urlTemplate, clients, durationS) {
  assertPgbench();
  await adminQuery(urlTemplate, `DROP DATABASE IF EXISTS ${TPCB_DATABASE}`);
  await adminQuery(urlTemplate, `CREATE DATABASE ${TPCB_DATABASE}`);
  try {
    const url = urlTemplate.replace('{database}', TPCB_DATABASE);
    await runPgbench(['-i', '-q', '-s', String(TPCB_SCALE), url]);
    const output = await runPgbench([
      '-c',
      String(clients),
      '-j',
      String(THREADS),
      '-T',
      String(durationS),
      '-M',
      'prepared',
      '--no-vacuum',
      url,
    ]);
    return { ...parsePgbench(output), scale: TPCB_SCALE, clients, durationS, script: 'tpcb-like' };
  } finally {
    await adminQuery(urlTemplate, `DROP DATABASE IF EXISTS ${TPCB_DATABASE}`).catch(() => {});
  }
}
