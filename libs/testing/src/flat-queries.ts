/**
 * One shape for the query-plan specs: a scratch database with a service's migrations,
 * a history seeded for many partners, every hot operation planned by EXPLAIN (ANALYZE)
 * once, the history grown (the hot partner's a hundredfold, the others' tenfold) and
 * every operation planned again. Each service states only what is its own: its
 * tables, its seeding and its operations; the checks are the same everywhere:
 * - the tables were seeded the size the planner must plan for;
 * - no statement reads a growing table sequentially, before or after;
 * - rows examined per table stay within 1.2× (and a few rows) of the run before.
 */
import type { DataSource } from '@platform/persistence';
import { growth, measureOperations, MeasuredOperation, migratedDataSource, PlannedOperation } from './query-plans';
import { createScratchDatabase, ScratchDatabase } from './scratch-database';

type MigrationList = Parameters<typeof migratedDataSource>[1];

export interface FlatQueriesSuite<Seeded, Context> {
  /** The describe block's title. */
  title: string;
  /** Prefix of the scratch database's name. */
  scratchName: string;
  /** The service's own data source for a URL: its migrations build the scratch schema. */
  serviceDataSource(url: string): DataSource;
  /** Tables that grow with history: a sequential scan of one fails the spec. */
  growingTables: readonly string[];
  /** The whole seeding and measuring may take this long (also each statement's timeout). */
  timeoutMs: number;
  /** Partners and their first history; what it returns is handed to every later step. */
  seedBefore(db: DataSource): Promise<Seeded>;
  /** The grown history, seeded after the first measurement. */
  seedAdded(db: DataSource, seeded: Seeded): Promise<void>;
  /** Brings the planner's statistics (and anything derived) up to date after each seeding. */
  analyse(db: DataSource): Promise<void>;
  /** The live rows one measurement works on, as the hot path meets them. */
  liveContext(db: DataSource, seeded: Seeded): Promise<Context>;
  /** Checks or resets after one measurement (e.g. close again what it reopened); optional. */
  afterMeasure?(db: DataSource, context: Context): Promise<void>;
  /** The hot path's statements on the growing tables, by operation, in the order they run. */
  operations(seeded: Seeded): Record<string, PlannedOperation<Context>>;
  /** The least rows each of these tables holds once seeded (counted after the grown history). */
  minimumRows: Record<string, number>;
  /** The service's own further checks of the seeded database, declared as `it` blocks; optional. */
  moreChecks?(database: () => DataSource): void;
}

export function describeFlatQueries<Seeded, Context>(suite: FlatQueriesSuite<Seeded, Context>): void {
  describe(suite.title, () => {
    let scratch: ScratchDatabase;
    let db: DataSource;
    let before: Record<string, MeasuredOperation>;
    let after: Record<string, MeasuredOperation>;

    async function measure(seeded: Seeded): Promise<Record<string, MeasuredOperation>> {
      const context = await suite.liveContext(db, seeded);
      const measured = await measureOperations(db, suite.operations(seeded), context, suite.growingTables);
      await suite.afterMeasure?.(db, context);
      return measured;
    }

    beforeAll(async () => {
      scratch = await createScratchDatabase(suite.scratchName);
      // The service's own list, as its data source holds it (TypeORM widens the element type there).
      const migrations = (suite.serviceDataSource(scratch.url).options.migrations ?? []) as MigrationList;
      db = await migratedDataSource(scratch.url, migrations, suite.timeoutMs);
      const seeded = await suite.seedBefore(db);
      await suite.analyse(db);
      before = await measure(seeded);
      await suite.seedAdded(db, seeded);
      await suite.analyse(db);
      after = await measure(seeded);
    }, suite.timeoutMs);

    afterAll(async () => {
      await db?.destroy();
      await scratch?.drop();
    });

    it('seeds the tables the size the planner must plan for', async () => {
      const counted: Record<string, number> = {};
      for (const table of Object.keys(suite.minimumRows)) {
        const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM ${table}`);
        counted[table] = Math.min(count, suite.minimumRows[table]);
      }
      expect(counted).toEqual(suite.minimumRows);
    });

    // One test per check, over every operation: on failure it names each offending operation.
    it('no operation reads a growing table sequentially', () => {
      const scanning = Object.keys(before)
        .map((name) => ({ name, before: before[name].seqScans, after: after[name].seqScans }))
        .filter((operation) => operation.before.length + operation.after.length > 0);
      expect(scanning).toEqual([]);
    });

    it('every operation reads as many rows after the history grew', () => {
      const growing = Object.keys(before)
        .map((name) => ({ name, grown: growth(before[name].rows, after[name].rows), scans: after[name].scans }))
        .filter((operation) => operation.grown.length > 0);
      // On failure, how each offender's statements read their tables after the history grew.
      expect(growing).toEqual([]);
    });

    suite.moreChecks?.(() => db);

    it('measured the same operations before and after', () => {
      expect(Object.keys(after)).toEqual(Object.keys(before));
      expect(Object.keys(before).length).toBeGreaterThan(0);
    });
  });
}

/**
 * How the histories grow in most specs: the hot partner's and each other partner's first
 * history (one row every `…Before` step back from the start), then more rows further back,
 * one every `…Added` step before the oldest of the first history.
 */
export interface HistoryGrowth {
  hotBefore: number;
  hotAdded: number;
  otherBefore: number;
  otherAdded: number;
  stepMs: { hotBefore: number; hotAdded: number; otherBefore: number; otherAdded: number };
}

/**
 * The growth most specs use: the hot partner's day so far (200 rows, one a minute), then
 * 20,000 more over the 24 hours before it; each other partner's 100 rows a little older,
 * then 1,000 more spread over 90 days.
 */
export const DAY_OF_HOT_HISTORY: HistoryGrowth = {
  hotBefore: 200,
  hotAdded: 20_000,
  otherBefore: 100,
  otherAdded: 1_000,
  stepMs: { hotBefore: 60_000, hotAdded: 4_000, otherBefore: 600_000, otherAdded: 7_776_000 },
};

/** One partner's rows to seed: `count` of them, one every `stepMs` back from `before`, numbered from `first`. */
export interface HistorySeed {
  count: number;
  before: Date;
  stepMs: number;
  first: number;
  /** True for the first history (where a spec plants its rare rows), false for what is added. */
  firstHistory: boolean;
}

export interface PartnerHistories {
  hotPartner: string;
  others: readonly string[];
  /** The start: the first history ends here. */
  now: Date;
}

/** Seeds the first histories (`phase` 'before') or the added ones ('added') of the hot partner and the others. */
export async function seedHistories(
  db: DataSource,
  partners: PartnerHistories,
  growth: HistoryGrowth,
  phase: 'before' | 'added',
  seed: (db: DataSource, partnerId: string, history: HistorySeed) => Promise<void>,
): Promise<void> {
  const { now } = partners;
  const seeds =
    phase === 'before'
      ? {
          hot: { count: growth.hotBefore, before: now, stepMs: growth.stepMs.hotBefore, first: 1 },
          other: { count: growth.otherBefore, before: now, stepMs: growth.stepMs.otherBefore, first: 1 },
        }
      : {
          hot: {
            count: growth.hotAdded,
            before: new Date(now.getTime() - growth.hotBefore * growth.stepMs.hotBefore),
            stepMs: growth.stepMs.hotAdded,
            first: growth.hotBefore + 1,
          },
          other: {
            count: growth.otherAdded,
            before: new Date(now.getTime() - growth.otherBefore * growth.stepMs.otherBefore),
            stepMs: growth.stepMs.otherAdded,
            first: growth.otherBefore + 1,
          },
        };
  const firstHistory = phase === 'before';
  await seed(db, partners.hotPartner, { ...seeds.hot, firstHistory });
  for (const partnerId of partners.others) await seed(db, partnerId, { ...seeds.other, firstHistory });
}
