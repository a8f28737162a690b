// Proves withTransaction's isolation against real PostgreSQL (a scratch database
// whose server default is changed to SERIALIZABLE, as a misconfigured server
// would have it): the default transaction still runs at READ COMMITTED, because
// every session of a data source starts at it, and one asking for another level
// gets that level. The READ COMMITTED transaction opens with START TRANSACTION
// alone; this is what keeps that shortcut honest.
import { createDataSource, DataSource, withTransaction } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';

let scratch: ScratchDatabase;
let db: DataSource;

beforeAll(async () => {
  scratch = await createScratchDatabase('transactions');
  const admin = await createDataSource({
    url: scratch.url,
    applicationName: 'transactions-spec-admin',
    poolSize: 1,
  }).initialize();
  await admin.query(`ALTER DATABASE ${scratch.name} SET default_transaction_isolation = 'serializable'`);
  await admin.destroy();
  db = await createDataSource({ url: scratch.url, applicationName: 'transactions-spec', poolSize: 2 }).initialize();
});

afterAll(async () => {
  await db?.destroy();
  await scratch?.drop();
});

const isolationInside = (level?: 'REPEATABLE READ' | 'SERIALIZABLE') =>
  withTransaction(
    db,
    async (manager) => {
      const [row] = await manager.query('SHOW transaction_isolation');
      return row.transaction_isolation as string;
    },
    level,
  );

describe('withTransaction', () => {
  it('runs at READ COMMITTED by default, whatever the database default says', async () => {
    await expect(isolationInside()).resolves.toBe('read committed');
  });

  it('runs at the level asked for otherwise', async () => {
    await expect(isolationInside('REPEATABLE READ')).resolves.toBe('repeatable read');
    await expect(isolationInside('SERIALIZABLE')).resolves.toBe('serializable');
  });
});
