/**
 * What the services' retention specs share: a scratch database migrated by the
 * service's own migrations (the running services would otherwise prune or
 * publish the planted rows), the service's own rules swept once, and whether a
 * rule's batch walks the index its migration added. The outbox's rule is the
 * same in every service that has one, so its spec is one function here.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '@platform/logger';
import { DataSource, pruneSql, RetentionRule, retentionSweepers } from '@platform/persistence';
import { createScratchDatabase } from './scratch-database';

const silent = { info() {}, warn() {}, error() {}, debug() {}, child: () => silent } as unknown as Logger;
const HOUR_MS = 60 * 60_000;

export interface RetentionStand {
  db: DataSource;
  /** One sweep of each rule (batches until one comes back short), as the service's worker runs it. */
  sweep(rules: readonly RetentionRule[], batchSize?: number): Promise<void>;
  /** The plan of the rule's delete, with sequential scans off: names `index` when the delete can walk it. */
  deletePlan(rule: RetentionRule): Promise<string>;
  drop(): Promise<void>;
}

/** `prefix`: lower-case letters and underscores; `dataSourceOf`: the service's data source (its migrations). */
export async function retentionStand(
  prefix: string,
  dataSourceOf: (url: string) => DataSource,
): Promise<RetentionStand> {
  const scratch = await createScratchDatabase(prefix);
  const db = await dataSourceOf(scratch.url).initialize();
  await db.runMigrations({ transaction: 'each' });
  return {
    db,
    async sweep(rules, batchSize = 10) {
      for (const sweeper of retentionSweepers(db, rules, silent, { intervalMs: 60_000, batchSize }))
        await sweeper.runOnce();
    },
    async deletePlan(rule) {
      return db.transaction(async (manager) => {
        await manager.query('SET LOCAL enable_seqscan = off');
        const plan = (await manager.query(`EXPLAIN ${pruneSql(rule)}`, [new Date(), 10])) as Array<{
          'QUERY PLAN': string;
        }>;
        return plan.map((line) => line['QUERY PLAN']).join('\n');
      });
    },
    async drop() {
      await db.destroy();
      await scratch.drop();
    },
  };
}

/** An outbox row created `createdAgoMs` ago, published `publishedAgoMs` ago (null: not yet). */
export async function plantOutboxRow(
  db: DataSource,
  row: { createdAgoMs: number; publishedAgoMs: number | null },
): Promise<string> {
  const id = randomUUID();
  const now = Date.now();
  await db.query(
    `INSERT INTO outbox (id, partner_id, type, payload, created_at, published_at) VALUES ($1, $2, 'order.settled', '{}', $3, $4)`,
    [
      id,
      randomUUID(),
      new Date(now - row.createdAgoMs),
      row.publishedAgoMs === null ? null : new Date(now - row.publishedAgoMs),
    ],
  );
  return id;
}

async function remaining(db: DataSource, ids: readonly string[]): Promise<string[]> {
  const rows = (await db.query('SELECT id FROM outbox WHERE id = ANY($1)', [ids])) as Array<{ id: string }>;
  return rows.map((row) => row.id).sort();
}

/**
 * The outbox retention spec of one service, with its own migrations and rules
 * (`rulesOf(outboxRetentionMs)`): published rows past the window are deleted,
 * however many batches they take; rows published inside it, and unpublished
 * rows of any age, are kept; the delete walks outbox_published_idx.
 */
export function describeOutboxRetention(
  service: string,
  dataSourceOf: (url: string) => DataSource,
  rulesOf: (outboxRetentionMs: number) => RetentionRule[],
): void {
  describe(`outbox retention (${service})`, () => {
    let stand: RetentionStand;
    const rules = () => rulesOf(HOUR_MS).filter((rule) => rule.table === 'outbox');

    beforeAll(async () => {
      stand = await retentionStand(`${service.replace(/-/g, '_')}_retention`, dataSourceOf);
    });
    afterAll(() => stand?.drop());

    it('deletes published rows past the window and keeps young and unpublished ones', async () => {
      const old = await Promise.all(
        Array.from({ length: 25 }, () =>
          plantOutboxRow(stand.db, { createdAgoMs: 3 * HOUR_MS, publishedAgoMs: 2 * HOUR_MS }),
        ),
      );
      const young = await plantOutboxRow(stand.db, { createdAgoMs: 2 * HOUR_MS, publishedAgoMs: 10 * 60_000 });
      const unpublished = await plantOutboxRow(stand.db, { createdAgoMs: 30 * 24 * HOUR_MS, publishedAgoMs: null });
      expect(rules()).toHaveLength(1);

      await stand.sweep(rules(), 10);

      expect(await remaining(stand.db, [...old, young, unpublished])).toEqual([young, unpublished].sort());
    });

    it('walks the index of published rows', async () => {
      const [rule] = rules();
      expect(await stand.deletePlan(rule!)).toContain('outbox_published_idx');
    });
  });
}
