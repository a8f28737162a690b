/**
 * A throw-away database on the test stack's PostgreSQL, for specs that must
 * own their rows (the running services would otherwise claim or publish them):
 * created empty, dropped (with any connection left to it) by `drop`.
 */
import { randomBytes } from 'node:crypto';
import { createDataSource } from '@platform/persistence';
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
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.destroy();
      }
    },
  };
}
