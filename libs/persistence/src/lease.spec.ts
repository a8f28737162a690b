// Proves the lease primitive's statements and its bookkeeping against a fake
// row: renewal and fence compare-and-set on the token (the timer value), a
// renewal moves the token and a row it no longer finds is no longer held, a
// fenced row keeps its token for a later fenced commit (a release after a
// rolled-back commit), a fence on a row another owner took throws
// LeaseLostError, and timings that could lose a lease between two renewals are
// refused.
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager } from 'typeorm';
import {
  fenceSql,
  giveBackHeldSql,
  HeldLeases,
  isLeaseLost,
  leaseTimingProblem,
  renewEveryMsFor,
  renewLeasesSql,
} from './lease';

const ROWS = { table: 'steps', dueColumn: 'due_at', idColumn: 'id', attemptsColumn: 'attempts' };
const logger = { warn: () => undefined } as unknown as Logger;

/** One row whose timer is its token; answers the three statements HeldLeases sends. */
function fakeRow(token: string) {
  const row = { token, renewals: 0 };
  const query = async (sql: string, parameters: unknown[]) => {
    if (sql === renewLeasesSql(ROWS)) {
      // As TypeORM answers an UPDATE … RETURNING: [rows, count].
      if (parameters[1] !== row.token) return [[], 0];
      row.renewals += 1;
      row.token = `${token}+${row.renewals}`;
      return [[{ id: 'a', token: row.token }], 1];
    }
    if (sql === fenceSql(ROWS)) return parameters[1] === row.token ? [{ held: 1 }] : [];
    if (sql === giveBackHeldSql(ROWS)) return [[], parameters[1] === row.token ? 1 : 0];
    throw new Error(`unexpected ${sql}`);
  };
  const manager = { query } as unknown as EntityManager;
  const dataSource = {
    manager,
    transaction: (work: (m: EntityManager) => Promise<unknown>) => work(manager),
  } as unknown as DataSource;
  return { row, manager, dataSource };
}

describe('lease statements', () => {
  it('renew, fence and give back only where the timer still reads the token', () => {
    expect(renewLeasesSql(ROWS).replace(/\s+/g, ' ')).toBe(
      'UPDATE steps SET due_at = now() + make_interval(secs => $3::double precision / 1000) ' +
        'WHERE id = ANY($1) AND due_at = $2::timestamptz RETURNING id::text AS id, due_at::text AS token',
    );
    expect(fenceSql(ROWS)).toBe('SELECT 1 AS held FROM steps WHERE id = $1 AND due_at = $2::timestamptz FOR UPDATE');
    expect(giveBackHeldSql(ROWS)).toBe(
      'UPDATE steps SET due_at = now(), attempts = greatest(attempts - 1, 0) WHERE id = ANY($1) AND due_at = $2::timestamptz',
    );
    expect(() => fenceSql({ table: 'steps', dueColumn: 'due_at' })).toThrow(/not identifiers/);
  });

  it('refuses timings that could lose a lease between two renewals', () => {
    expect(renewEveryMsFor(3_000)).toBe(1_000);
    expect(leaseTimingProblem({ leaseMs: 3_000, renewEveryMs: 1_000 })).toBeNull();
    expect(leaseTimingProblem({ leaseMs: 3_000, renewEveryMs: 1_600 })).toMatch(/renewEveryMs/);
    expect(leaseTimingProblem({ leaseMs: 500, renewEveryMs: 100 })).toMatch(/leaseMs/);
  });
});

describe('HeldLeases', () => {
  it('renews by the current token, and fences the final commit with the newest one', async () => {
    const { row, manager, dataSource } = fakeRow('t0');
    const leases = new HeldLeases(dataSource, ROWS, { leaseMs: 3_000, renewEveryMs: 1_000 }, logger);
    leases.hold('a', 't0');
    await leases.renewNow();
    await leases.renewNow();
    expect(row.token).toBe('t0+2');
    await leases.fence(manager, 'a');
    await leases.renewNow(); // a fenced row is no longer renewed
    expect(row.renewals).toBe(2);
    // The commit rolled back: a release is still fenced by the same token.
    expect(await leases.giveBack(['a'])).toBe(1);
    leases.stop();
  });

  it('stops holding a row a renewal no longer finds, and refuses its fence', async () => {
    const { row, manager, dataSource } = fakeRow('t0');
    const leases = new HeldLeases(dataSource, ROWS, { leaseMs: 3_000, renewEveryMs: 1_000 }, logger);
    leases.hold('a', 't0');
    row.token = 'another owner';
    await leases.renewNow();
    expect(leases.isHeld('a')).toBe(false);
    const refused = await leases.fence(manager, 'a').catch((error: unknown) => error);
    expect(isLeaseLost(refused)).toBe(true);
    leases.stop();
  });
});
