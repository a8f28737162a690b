// Proves claimIdempotently against real PostgreSQL (a scratch database with a
// key table shaped like the services': a unique key, the request hash, a
// status that reads `creating` while the create after the claim runs):
// concurrent repeats of one request make one row and one create and all
// answer it; concurrent requests with different bodies under one key make one
// row and every other is refused; a twin that waits for a create that is then
// refused (its row deleted) claims the key and creates it itself.
import { randomUUID } from 'node:crypto';
import { isAppError } from '@platform/errors';
import { createDataSource, DataSource, queryRows, sleep } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import { claimIdempotently } from '../src/idempotency';

interface Row {
  id: string;
  requestHash: string;
  status: string;
}

const CONCURRENT_REPEATS = 8;
const CREATE_MS = 300;

let scratch: ScratchDatabase;
let db: DataSource;

beforeAll(async () => {
  scratch = await createScratchDatabase('idempotency');
  db = await createDataSource({
    url: scratch.url,
    applicationName: 'idempotency-spec',
    poolSize: CONCURRENT_REPEATS + 2,
  }).initialize();
  await db.query(
    `CREATE TABLE things (id uuid PRIMARY KEY, key text NOT NULL UNIQUE, request_hash text NOT NULL, status text NOT NULL)`,
  );
});

afterAll(async () => {
  await db?.destroy();
  await scratch?.drop();
});

async function find(key: string): Promise<Row | null> {
  const [row] = await queryRows<Row>(
    db,
    `SELECT id, request_hash AS "requestHash", status FROM things WHERE key = $1`,
    [key],
  );
  return row ?? null;
}

async function claim(key: string, requestHash: string): Promise<Row | null> {
  const [row] = await queryRows<Row>(
    db,
    `INSERT INTO things (id, key, request_hash, status) VALUES ($1, $2, $3, 'creating') ON CONFLICT (key) DO NOTHING
     RETURNING id, request_hash AS "requestHash", status`,
    [randomUUID(), key, requestHash],
  );
  return row ?? null;
}

/** A create that takes a while after its claim, then finishes the row, or is refused and gives the key up. */
function request(key: string, requestHash: string, creates: string[], refuse = false) {
  return claimIdempotently<Row>({
    requestHash,
    find: () => find(key),
    claim: () => claim(key, requestHash),
    pending: (row) => row.status === 'creating',
    reread: () => find(key),
    create: async (claimed) => {
      creates.push(claimed.id);
      await sleep(CREATE_MS);
      if (refuse) {
        await db.query(`DELETE FROM things WHERE id = $1`, [claimed.id]);
        throw new Error('refused');
      }
      await db.query(`UPDATE things SET status = 'done' WHERE id = $1`, [claimed.id]);
      return { ...claimed, status: 'done' };
    },
  });
}

it('resolves concurrent repeats of one request to one create and one answer', async () => {
  const key = randomUUID();
  const creates: string[] = [];
  const results = await Promise.all(Array.from({ length: CONCURRENT_REPEATS }, () => request(key, 'same', creates)));
  expect(creates).toHaveLength(1);
  expect(new Set(results.map((result) => result.resource.id))).toEqual(new Set(creates));
  expect(results.filter((result) => !result.replayed)).toHaveLength(1);
  expect(results.every((result) => result.resource.status === 'done')).toBe(true);
  const [{ count }] = await queryRows<{ count: string }>(db, `SELECT count(*) AS count FROM things WHERE key = $1`, [
    key,
  ]);
  expect(count).toBe('1');
});

it('refuses every other body sent under the key at the same moment', async () => {
  const key = randomUUID();
  const creates: string[] = [];
  const outcomes = await Promise.allSettled(
    Array.from({ length: CONCURRENT_REPEATS }, (_, index) => request(key, `body-${index}`, creates)),
  );
  const codes = outcomes.map((outcome) =>
    outcome.status === 'fulfilled'
      ? 'created'
      : isAppError(outcome.reason)
        ? outcome.reason.code
        : String(outcome.reason),
  );
  expect(codes.filter((code) => code === 'created')).toHaveLength(1);
  expect(codes.filter((code) => code === 'IDEMPOTENCY_KEY_REUSED')).toHaveLength(CONCURRENT_REPEATS - 1);
  expect(creates).toHaveLength(1);
});

it('lets a waiting twin claim the key when the first create is refused', async () => {
  const key = randomUUID();
  const creates: string[] = [];
  const first = request(key, 'same', creates, true);
  await sleep(CREATE_MS / 3);
  const twin = request(key, 'same', creates);
  await expect(first).rejects.toThrow('refused');
  const result = await twin;
  expect(result.replayed).toBe(false);
  expect(creates).toHaveLength(2);
  expect(await find(key)).toEqual({ id: result.resource.id, requestHash: 'same', status: 'done' });
});
