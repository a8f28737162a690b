// Proves HeldLeases against real PostgreSQL and TypeORM's own answers, which a
// fake cannot: a live owner keeps its lease across renewals well past the
// lease's first term, and its fenced commit then goes through; a repeat cannot
// take the row meanwhile; an owner that stopped renewing loses the row to the
// next claim and its late commit is refused. (TypeORM answers an UPDATE …
// RETURNING as [rows, count]; a renewal that read that answer as rows lost
// every lease at its first renewal, so any create slower than one renewal
// period answered 503.)
import { randomUUID } from 'node:crypto';
import type { Logger } from '@platform/logger';
import {
  createDataSource,
  DataSource,
  HeldLeases,
  isLeaseLost,
  leaseTokenSelect,
  queryRows,
} from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';

const ROWS = { table: 'leased_rows', dueColumn: 'due_at', idColumn: 'id' };
const LEASE_MS = 1_000;
const RENEW_EVERY_MS = 200;
/** Past the lease's first term several times over: only renewals keep it. */
const WORK_MS = 2_500;

const warnings: unknown[] = [];
const logger = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger;

let scratch: ScratchDatabase;
let db: DataSource;

beforeAll(async () => {
  scratch = await createScratchDatabase('leases');
  db = await createDataSource({ url: scratch.url, applicationName: 'lease-spec', poolSize: 4 }).initialize();
  await db.query('CREATE TABLE leased_rows (id uuid PRIMARY KEY, due_at timestamptz NOT NULL, owner text)');
});

afterAll(async () => {
  await db?.destroy();
  await scratch?.drop();
});

/** Leases a new row (or a due one) to the caller, as a create's claim or a worker's claim does; answers the token. */
async function claim(id: string): Promise<string | undefined> {
  const [row] = await queryRows<{ leaseToken: string }>(
    db.manager,
    `INSERT INTO leased_rows (id, due_at) VALUES ($1, now() + make_interval(secs => $2::double precision / 1000))
     ON CONFLICT (id) DO UPDATE SET due_at = EXCLUDED.due_at WHERE leased_rows.due_at <= now()
     RETURNING ${leaseTokenSelect('due_at')}`,
    [id, LEASE_MS],
  );
  return row?.leaseToken;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ownerOf(id: string): Promise<string | null> {
  const [row] = await queryRows<{ owner: string | null }>(db.manager, 'SELECT owner FROM leased_rows WHERE id = $1', [
    id,
  ]);
  return row.owner;
}

describe('HeldLeases against PostgreSQL', () => {
  it('keeps a live owner’s lease across renewals, refuses a second claim meanwhile, and commits behind the fence', async () => {
    const id = randomUUID();
    const token = await claim(id);
    expect(token).toBeDefined();
    const leases = new HeldLeases(db, ROWS, { leaseMs: LEASE_MS, renewEveryMs: RENEW_EVERY_MS }, logger);
    leases.hold(id, token!);
    const lease = leases.stepLease(id);
    await sleep(WORK_MS);
    expect(lease.held).toBe(true);
    await expect(claim(id)).resolves.toBeUndefined();
    await lease.commit((manager) => manager.query("UPDATE leased_rows SET owner = 'first' WHERE id = $1", [id]));
    leases.stop();
    expect(await ownerOf(id)).toBe('first');
    expect(warnings).toEqual([]);
  });

  it('lets the next claim take the row of an owner that stopped renewing, and refuses that owner’s late commit', async () => {
    const id = randomUUID();
    const leases = new HeldLeases(db, ROWS, { leaseMs: LEASE_MS, renewEveryMs: RENEW_EVERY_MS }, logger);
    leases.hold(id, (await claim(id))!);
    const stalled = leases.stepLease(id);
    leases.stop();
    await sleep(LEASE_MS + 200);
    const takenOver = await claim(id);
    expect(takenOver).toBeDefined();
    const refused = await stalled
      .commit((manager) => manager.query("UPDATE leased_rows SET owner = 'stalled' WHERE id = $1", [id]))
      .catch((error: unknown) => error);
    expect(isLeaseLost(refused)).toBe(true);
    expect(await ownerOf(id)).toBeNull();
  });
});
