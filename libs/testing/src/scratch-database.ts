/**
 * A throw-away database on the test stack's PostgreSQL, for specs that must
 * own their rows (the running services would otherwise claim or publish them):
 * created empty, dropped (with any connection left to it) by `drop`.
 */
import { randomBytes } from 'node:crypto';
import { createDataSource, sqlState } from '@platform/persistence';
import { loadTestStack } from './stack';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** The URL of a database of the test stack's PostgreSQL. */
export function stackDatabaseUrl(name: string): string {
  const template = loadTestStack().postgres?.urlTemplate;
  if (!template) throw new Error('the stack file has no postgres.urlTemplate');
  return template.replace('{database}', name);
}

/** `prefix` names the spec: lower-case letters and underscores; a random suffix makes it unique. */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  if (!/^[a-z_]{1,40}$/.test(prefix))
    throw new Error(`scratch database prefix ${prefix} must be lower-case letters and underscores`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = await createDataSource({
    url: stackDatabaseUrl('postgres'),
    applicationName: `${prefix}-admin`,
    poolSize: 1,
  }).initialize();
  await admin.query(`CREATE DATABASE ${name}`);
  return {
    name,
    url: stackDatabaseUrl(name),
    async drop() {
      try {
        await dropDatabase(admin, name);
      } finally {
        await admin.destroy();
      }
    },
  };
}

const INSUFFICIENT_PRIVILEGE = '42501';

async function dropDatabase(admin: { query(sql: string, parameters?: unknown[]): Promise<unknown> }, name: string) {
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } catch (error) {
    // PostgreSQL 15 refuses FORCE while an autovacuum worker is in the database: the worker's
    // backend has no role ours may signal. A plain DROP signals autovacuum itself and waits up to
    // 5 s for every backend to leave, so end the spec's own leftover connections, then drop.
    if (sqlState(error) !== INSUFFICIENT_PRIVILEGE) throw error;
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = $1 AND pid <> pg_backend_pid() AND usename = current_user`,
      [name],
    );
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  }
}
