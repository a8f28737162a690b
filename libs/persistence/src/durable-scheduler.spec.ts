// Proves the claim/lease/drain primitive against an in-memory table that behaves
// like the claim and release statements (timers, leases, attempts counted on
// claim): due rows are claimed in timer order and each step runs once; a step
// that meets an unavailable dependency gives its row back at once (due now,
// attempt not counted) without counting a failure, and the rest of the batch
// too once the readiness gate closes; any
// other failure keeps the lease; a closed readiness gate claims nothing; a kick
// runs a pass before the interval; stop() hands back unstarted rows, waits for
// the step in flight, and gives up waiting at the drain bound. Leases: the
// batch's rows are renewed while a step runs (their timer, the token, moves
// ahead by compare-and-set); a row taken by another owner before its step is
// skipped; a step's fenced commit whose lease another owner took is dropped
// (LeaseLostError: no write, no failure counted, nothing given back).
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { metricsRegistry } from '@platform/metrics';
import type { DataSource, EntityManager } from 'typeorm';
import { DurableScheduler, DueWork } from './durable-scheduler';
import { fenceSql, giveBackHeldSql, LeaseLostError, renewLeasesSql, StepLease } from './lease';

interface Row {
  id: string;
  dueAtMs: number;
  attempts: number;
}

const LEASE_MS = 60_000;

/**
 * The rows, and the statements the scheduler sends: the claim (through DueWork),
 * the give-back, the renewal and the fence, each matching on the row's timer as
 * its lease token (here the timer's milliseconds as text).
 */
class FakeTable {
  readonly rows = new Map<string, Row>();
  readonly statements: string[] = [];

  constructor(ids: string[]) {
    ids.forEach((id, index) => this.rows.set(id, { id, dueAtMs: Date.now() - 1_000 + index, attempts: 0 }));
  }

  claim(limit: number, leaseMs: number): Array<Row & { leaseToken: string }> {
    const now = Date.now();
    const due = [...this.rows.values()]
      .filter((row) => row.dueAtMs <= now)
      .sort((a, b) => a.dueAtMs - b.dueAtMs)
      .slice(0, limit);
    for (const row of due) Object.assign(row, { dueAtMs: now + leaseMs, attempts: row.attempts + 1 });
    return due.map((row) => ({ ...row, leaseToken: String(row.dueAtMs) }));
  }

  /** Another owner takes the row (its timer, the token, moves). */
  takeOver(id: string): void {
    this.rows.get(id)!.dueAtMs += 7;
  }

  private holding(ids: string[], token: string): Row[] {
    return ids.map((id) => this.rows.get(id)!).filter((row) => String(row.dueAtMs) === token);
  }

  private query(sql: string, parameters: unknown[]): unknown {
    this.statements.push(sql);
    const now = Date.now();
    if (sql === giveBackHeldSql(DUE_ROWS)) {
      const moved = this.holding(parameters[0] as string[], parameters[1] as string);
      for (const row of moved) Object.assign(row, { dueAtMs: now, attempts: Math.max(0, row.attempts - 1) });
      return [[], moved.length];
    }
    if (sql === renewLeasesSql(DUE_ROWS)) {
      const [ids, token, leaseMs] = parameters as [string[], string, number];
      const renewed = this.holding(ids, token);
      for (const row of renewed) row.dueAtMs = Math.max(now + leaseMs, row.dueAtMs + 1);
      // As TypeORM answers an UPDATE … RETURNING: [rows, count].
      return [renewed.map((row) => ({ id: row.id, token: String(row.dueAtMs) })), renewed.length];
    }
    if (sql === fenceSql(DUE_ROWS)) {
      const [id, token] = parameters as [string, string];
      return this.holding([id], token).map(() => ({ held: 1 }));
    }
    throw new Error(`unexpected statement ${sql}`);
  }

  dataSource(): DataSource {
    const manager = {
      query: async (sql: string, parameters: unknown[]) => this.query(sql, parameters),
    } as unknown as EntityManager;
    return {
      manager,
      transaction: (work: (manager: EntityManager) => Promise<unknown>) => work(manager),
    } as unknown as DataSource;
  }
}

const DUE_ROWS = { table: 'steps', dueColumn: 'due_at', idColumn: 'id', attemptsColumn: 'attempts' };

const logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => logger,
} as unknown as Logger;

function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

function schedulerOf(
  table: FakeTable,
  run: (row: Row, lease: StepLease) => Promise<void>,
  extra: Partial<DueWork<Row>> & {
    name: string;
    batchSize?: number;
    intervalMs?: number;
    drainMs?: number;
    renewEveryMs?: number;
  },
): DurableScheduler<Row> {
  return new DurableScheduler<Row>(
    table.dataSource(),
    {
      dueRows: DUE_ROWS,
      claimDue: async (_manager, limit, leaseMs) => table.claim(limit, leaseMs),
      idOf: (row) => row.id,
      run,
      ...extra,
    },
    logger,
    {
      intervalMs: extra.intervalMs ?? 60_000,
      batchSize: extra.batchSize ?? 10,
      leaseMs: LEASE_MS,
      renewEveryMs: extra.renewEveryMs,
      drainMs: extra.drainMs,
    },
  );
}

async function counter(name: string, worker: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  return metric?.values.find((value) => value.labels.worker === worker)?.value ?? 0;
}

describe('DurableScheduler', () => {
  it('claims due rows in timer order, runs each step once and leaves them leased', async () => {
    const table = new FakeTable(['a', 'b', 'c']);
    const ran: string[] = [];
    const scheduler = schedulerOf(table, async (row) => void ran.push(row.id), { name: 'spec_claim' });
    expect(await scheduler.runOnce()).toBe('idle');
    expect(ran).toEqual(['a', 'b', 'c']);
    expect([...table.rows.values()].every((row) => row.dueAtMs > Date.now() + LEASE_MS / 2)).toBe(true);
    expect(await scheduler.runOnce()).toBe('idle');
    expect(ran).toHaveLength(3);
  });

  it('answers "more" after a full batch, so the next pass starts at once', async () => {
    const table = new FakeTable(['a', 'b', 'c']);
    const scheduler = schedulerOf(table, async () => undefined, { name: 'spec_full', batchSize: 2 });
    expect(await scheduler.runOnce()).toBe('more');
    expect(await scheduler.runOnce()).toBe('idle');
  });

  it('gives a row back at once when a dependency is unavailable, counting no failure, and goes on while the gate is open', async () => {
    const table = new FakeTable(['a', 'b', 'c']);
    const ran: string[] = [];
    const scheduler = schedulerOf(
      table,
      async (row) => {
        ran.push(row.id);
        if (row.id === 'b') throw new AppError('SERVICE_UNAVAILABLE');
      },
      { name: 'spec_unavailable' },
    );
    expect(await scheduler.runOnce()).toBe('unavailable');
    expect(ran).toEqual(['a', 'b', 'c']);
    const now = Date.now();
    for (const id of ['a', 'c']) {
      expect(table.rows.get(id)!.dueAtMs).toBeGreaterThan(now);
      expect(table.rows.get(id)!.attempts).toBe(1);
    }
    expect(table.rows.get('b')!.dueAtMs).toBeLessThanOrEqual(now);
    expect(table.rows.get('b')!.attempts).toBe(0);
    expect(await counter('worker_releases_total', 'spec_unavailable')).toBe(1);
    expect(await counter('worker_failures_total', 'spec_unavailable')).toBe(0);
  });

  it('gives the rest of the batch back, unstarted, once the gate closes mid-batch', async () => {
    const table = new FakeTable(['a', 'b', 'c']);
    let reachable = true;
    const ran: string[] = [];
    const scheduler = schedulerOf(
      table,
      async (row) => {
        ran.push(row.id);
        if (row.id === 'a') {
          reachable = false; // the breaker opened, the channel failed
          throw new AppError('SERVICE_UNAVAILABLE');
        }
      },
      { name: 'spec_gate_closes', ready: () => reachable },
    );
    expect(await scheduler.runOnce()).toBe('unavailable');
    expect(ran).toEqual(['a']);
    for (const id of ['a', 'b', 'c']) expect(table.rows.get(id)).toMatchObject({ attempts: 0 });
    expect(await counter('worker_releases_total', 'spec_gate_closes')).toBe(3);
  });

  it('treats a raw gRPC UNAVAILABLE or DEADLINE_EXCEEDED from an adapter as unavailable too', async () => {
    const table = new FakeTable(['a']);
    const scheduler = schedulerOf(
      table,
      async () => {
        throw Object.assign(new Error('deadline'), { code: 4 });
      },
      { name: 'spec_raw_code' },
    );
    expect(await scheduler.runOnce()).toBe('unavailable');
    expect(table.rows.get('a')!.dueAtMs).toBeLessThanOrEqual(Date.now());
  });

  it('keeps the lease of a step that failed otherwise, and runs the others', async () => {
    const table = new FakeTable(['a', 'b']);
    const ran: string[] = [];
    const scheduler = schedulerOf(
      table,
      async (row) => {
        ran.push(row.id);
        if (row.id === 'a') throw new Error('bug');
      },
      { name: 'spec_failure' },
    );
    expect(await scheduler.runOnce()).toBe('idle');
    expect(ran).toEqual(['a', 'b']);
    expect(table.rows.get('a')!.dueAtMs).toBeGreaterThan(Date.now());
    expect(table.rows.get('a')!.attempts).toBe(1);
    expect(await counter('worker_failures_total', 'spec_failure')).toBe(1);
  });

  it('claims nothing while its readiness gate is closed', async () => {
    const table = new FakeTable(['a']);
    let reachable = false;
    const ran: string[] = [];
    const scheduler = schedulerOf(table, async (row) => void ran.push(row.id), {
      name: 'spec_gate',
      ready: () => reachable,
    });
    expect(await scheduler.runOnce()).toBe('gated');
    expect(table.rows.get('a')!.attempts).toBe(0);
    reachable = true;
    expect(await scheduler.runOnce()).toBe('idle');
    expect(ran).toEqual(['a']);
  });

  it('runs a pass at once when kicked, long before its interval', async () => {
    const table = new FakeTable(['a']);
    const ran = deferred();
    const scheduler = schedulerOf(table, async () => ran.resolve(), { name: 'spec_kick', intervalMs: 60_000 });
    scheduler.start();
    scheduler.kick();
    await ran.promise;
    await scheduler.stop();
  });

  it('at stop, waits for the step in flight and gives back the rows it had not started', async () => {
    const table = new FakeTable(['a', 'b', 'c']);
    const started = deferred();
    const finish = deferred();
    const ran: string[] = [];
    const scheduler = schedulerOf(
      table,
      async (row) => {
        ran.push(row.id);
        started.resolve();
        await finish.promise;
      },
      { name: 'spec_drain', intervalMs: 1 },
    );
    scheduler.start();
    await started.promise;
    const stopped = scheduler.stop();
    finish.resolve();
    await stopped;
    expect(ran).toEqual(['a']);
    expect(table.rows.get('a')!.dueAtMs).toBeGreaterThan(Date.now());
    for (const id of ['b', 'c']) expect(table.rows.get(id)).toMatchObject({ attempts: 0 });
  });

  it('stops waiting at the drain bound; the hanging step keeps its lease', async () => {
    const table = new FakeTable(['a']);
    const started = deferred();
    const scheduler = schedulerOf(
      table,
      async () => {
        started.resolve();
        await new Promise(() => undefined);
      },
      { name: 'spec_bound', intervalMs: 1, drainMs: 50 },
    );
    scheduler.start();
    await started.promise;
    const before = Date.now();
    await scheduler.stop();
    expect(Date.now() - before).toBeLessThan(1_000);
    expect(table.rows.get('a')).toMatchObject({ attempts: 1 });
    expect(table.rows.get('a')!.dueAtMs).toBeGreaterThan(Date.now());
  });

  it('renews the leases of every row of the batch while a step runs, by compare-and-set on the token', async () => {
    const table = new FakeTable(['a', 'b']);
    const claimedUntil: number[] = [];
    const scheduler = schedulerOf(
      table,
      async (row) => {
        if (row.id !== 'a') return;
        claimedUntil.push(table.rows.get('a')!.dueAtMs, table.rows.get('b')!.dueAtMs);
        await new Promise((resolve) => setTimeout(resolve, 100));
      },
      { name: 'spec_renew', renewEveryMs: 10 },
    );
    expect(await scheduler.runOnce()).toBe('idle');
    expect(table.statements.filter((sql) => sql === renewLeasesSql(DUE_ROWS)).length).toBeGreaterThan(2);
    expect(table.rows.get('a')!.dueAtMs).toBeGreaterThan(claimedUntil[0]);
    expect(table.rows.get('b')!.dueAtMs).toBeGreaterThan(claimedUntil[1]);
  });

  it('skips a row another owner took before its step started', async () => {
    const table = new FakeTable(['a', 'b']);
    const ran: string[] = [];
    const scheduler = schedulerOf(
      table,
      async (row) => {
        ran.push(row.id);
        if (row.id !== 'a') return;
        table.takeOver('b');
        await new Promise((resolve) => setTimeout(resolve, 50)); // a renewal finds b gone
      },
      { name: 'spec_taken', renewEveryMs: 10 },
    );
    expect(await scheduler.runOnce()).toBe('idle');
    expect(ran).toEqual(['a']);
    expect(table.rows.get('b')!.attempts).toBe(1);
  });

  it("drops a slow step's fenced commit once another owner took its row: no write, no failure, nothing given back", async () => {
    const table = new FakeTable(['a', 'b']);
    const written: string[] = [];
    const scheduler = schedulerOf(
      table,
      async (row, lease) => {
        if (row.id === 'a') table.takeOver('a'); // this owner stalled past its lease; another claimed it
        await lease.commit(async () => void written.push(row.id));
      },
      { name: 'spec_fenced' },
    );
    expect(await scheduler.runOnce()).toBe('idle');
    expect(written).toEqual(['b']);
    expect(await counter('worker_failures_total', 'spec_fenced')).toBe(0);
    expect(await counter('worker_releases_total', 'spec_fenced')).toBe(0);
    expect(table.rows.get('a')!.attempts).toBe(1);
  });

  it('refuses a lease its owner could lose between two renewals, and a claim that answers no token', async () => {
    const table = new FakeTable(['a']);
    expect(() => schedulerOf(table, async () => undefined, { name: 'spec_timing', renewEveryMs: LEASE_MS })).toThrow(
      /renewEveryMs must be at most/,
    );
    const tokenless = schedulerOf(table, async () => undefined, {
      name: 'spec_tokenless',
      claimDue: async (_manager, limit, leaseMs) => table.claim(limit, leaseMs).map(({ leaseToken, ...row }) => row),
    });
    expect(await tokenless.runOnce()).toBe('idle'); // the pass failed, logged; the loop goes on
    expect(new LeaseLostError('steps', 'a').message).toMatch(/passed to another owner/);
  });
});
