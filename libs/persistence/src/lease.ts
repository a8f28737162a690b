/**
 * Short leases that their live owner renews, with a fencing token: the one
 * shape every claim of a row (a worker's due rows, a create's `creating` row)
 * holds its work by.
 *
 * A claim leases a row by moving its timer column ahead (`now() + leaseMs`).
 * That timer value is the lease's token: no other claim can produce it (a new
 * claim happens only once the timer has passed, at a later now()), so a row
 * whose timer still reads the owner's token has not been taken by anyone
 * else. While the owner works, HeldLeases renews every held row every
 * `renewEveryMs` with one compare-and-set (timer = token → now() + leaseMs,
 * the new value the new token); a row the renewal no longer finds was moved
 * on by its own step or taken by another owner, and is no longer renewed. A
 * replica that dies stops renewing, so its rows are taken again at most
 * `leaseMs` after its last renewal, whatever the work's length.
 *
 * The owner's final commit is fenced: inside its transaction, fence() locks
 * the row only if its timer still reads the token (else LeaseLostError, and
 * the transaction rolls back), so a slow owner whose lease passed to another
 * can never commit over the new owner; once locked, nobody can claim the row
 * until that transaction ends. Renewals and fences of one owner are serialised
 * (a fence waits for the renewal in flight), so a renewal never moves a token
 * under a fence.
 */
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager } from 'typeorm';
import type { DueRows } from './due-rows';
import { queryRows, withTransaction } from './data-source';

/** A claim's lease when the caller names none: short, so a dead owner's rows are retaken within seconds. */
export const LEASE_MS_DEFAULT = 3_000;
/** A live owner renews at least this many times per lease, so one slow renewal does not lose it. */
export const LEASE_RENEWALS_PER_LEASE_MIN = 2;
/** Bounds on a lease, for configuration checks. */
export const LEASE_MS_MIN = 1_000;
export const LEASE_MS_MAX = 600_000;
/** Rows renewed per statement at most (a batch is far smaller; the bound keeps a statement small whatever). */
const RENEWED_PER_STATEMENT_MAX = 1_000;

/** How long a lease lasts and how often its live owner renews it. */
export interface LeaseTiming {
  leaseMs: number;
  renewEveryMs: number;
}

/** The default renewal of a lease: a third of it (a 3 s lease renewed every second). */
export function renewEveryMsFor(leaseMs: number): number {
  return Math.max(1, Math.floor(leaseMs / (LEASE_RENEWALS_PER_LEASE_MIN + 1)));
}

/** A problem with a lease's timing in words (for config checks), or null when it is sound. */
export function leaseTimingProblem(timing: LeaseTiming): string | null {
  const { leaseMs, renewEveryMs } = timing;
  if (!Number.isInteger(leaseMs) || leaseMs < LEASE_MS_MIN || leaseMs > LEASE_MS_MAX)
    return `leaseMs must be an integer in ${LEASE_MS_MIN}..${LEASE_MS_MAX}, got ${leaseMs}`;
  if (!Number.isInteger(renewEveryMs) || renewEveryMs < 1 || renewEveryMs * LEASE_RENEWALS_PER_LEASE_MIN > leaseMs)
    return `renewEveryMs must be at most 1/${LEASE_RENEWALS_PER_LEASE_MIN} of leaseMs (${leaseMs}), got ${renewEveryMs}`;
  return null;
}

/** Thrown by a fenced commit whose lease another owner took: this owner's work on the row is dropped, not retried. */
export class LeaseLostError extends Error {
  constructor(
    readonly table: string,
    readonly id: string,
  ) {
    super(`lease on ${table} ${id} passed to another owner; commit dropped`);
    this.name = 'LeaseLostError';
  }
}

export function isLeaseLost(error: unknown): error is LeaseLostError {
  return error instanceof LeaseLostError;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function leasedTable(rows: DueRows): { table: string; due: string; id: string } {
  const names = [rows.table, rows.dueColumn, rows.idColumn ?? ''];
  if (!names.every((name) => IDENTIFIER.test(name))) throw new Error(`not identifiers: ${names.join(', ')}`);
  return { table: rows.table, due: rows.dueColumn, id: rows.idColumn! };
}

/** The token of a claim: the timer value it wrote, as exact text (microseconds kept), for the claim's RETURNING list. */
export function leaseTokenSelect(dueColumn: string): string {
  if (!IDENTIFIER.test(dueColumn)) throw new Error(`not an identifier: ${dueColumn}`);
  return `${dueColumn}::text AS "leaseToken"`;
}

/** Renews the rows $1 whose timer still reads the token $2, by $3 ms; answers each renewed row with its new token. */
export function renewLeasesSql(rows: DueRows): string {
  const { table, due, id } = leasedTable(rows);
  return `UPDATE ${table} SET ${due} = now() + make_interval(secs => $3::double precision / 1000)
     WHERE ${id} = ANY($1) AND ${due} = $2::timestamptz RETURNING ${id}::text AS id, ${due}::text AS token`;
}

/** Locks row $1 if its timer still reads the token $2 (the fence of a final commit). */
export function fenceSql(rows: DueRows): string {
  const { table, due, id } = leasedTable(rows);
  return `SELECT 1 AS held FROM ${table} WHERE ${id} = $1 AND ${due} = $2::timestamptz FOR UPDATE`;
}

/**
 * Gives held rows $1 back (due now; the attempt uncounted when the claim counts
 * them), only those whose timer still reads the token $2: a row another owner
 * took meanwhile is left alone.
 */
export function giveBackHeldSql(rows: DueRows): string {
  const { table, due, id } = leasedTable(rows);
  const attempts = rows.attemptsColumn;
  if (attempts && !IDENTIFIER.test(attempts)) throw new Error(`not an identifier: ${attempts}`);
  const uncount = attempts ? `, ${attempts} = greatest(${attempts} - 1, 0)` : '';
  return `UPDATE ${table} SET ${due} = now()${uncount} WHERE ${id} = ANY($1) AND ${due} = $2::timestamptz`;
}

/** One held row, as its step sees it. */
export interface StepLease {
  /** False once a renewal found the row moved on or taken: its owner should not start side effects for it. */
  readonly held: boolean;
  /**
   * The fence of the step's final commit, inside its transaction: locks the
   * row while its token holds (LeaseLostError otherwise) and stops renewing it.
   */
  fence(manager: EntityManager): Promise<void>;
  /** The step's final commit: `write` in one transaction behind fence(). */
  commit<R>(write: (manager: EntityManager) => Promise<R>): Promise<R>;
}

/**
 * The leases one owner holds on rows of one table: renewed together while
 * held, fenced one by one at their final commit, given back together.
 */
export class HeldLeases {
  /** Every held row's token; those in `renewing` are renewed (a fenced row keeps its token, no longer renewed). */
  private readonly tokens = new Map<string, string>();
  private readonly renewed = new Set<string>();
  private readonly lost = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  /** The renewal in flight (or a resolved promise): fences and give-backs wait for it. */
  private renewing: Promise<void> = Promise.resolve();
  private renewalQueued = false;
  private readonly renewSql: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly rows: DueRows,
    private readonly timing: LeaseTiming,
    private readonly logger: Logger,
  ) {
    const problem = leaseTimingProblem(timing);
    if (problem) throw new Error(`${rows.table} lease: ${problem}`);
    this.renewSql = renewLeasesSql(rows);
  }

  /** Starts holding `id` under `token` (renewed from the next tick on). */
  hold(id: string, token: string): void {
    this.tokens.set(id, token);
    this.renewed.add(id);
    this.lost.delete(id);
    this.timer ??= setInterval(() => this.renewSoon(), this.timing.renewEveryMs).unref();
  }

  isHeld(id: string): boolean {
    return this.tokens.has(id) && !this.lost.has(id);
  }

  /** Stops renewing `id` (its step moved it on); its timer is left as it is. */
  drop(id: string): void {
    this.tokens.delete(id);
    this.renewed.delete(id);
    this.lost.delete(id);
    if (this.renewed.size === 0) this.stop();
  }

  /** Stops renewing everything; what is still held keeps its lease until it passes. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A view of one held row for its step. */
  stepLease(id: string): StepLease {
    const isHeld = () => this.isHeld(id);
    return {
      get held() {
        return isHeld();
      },
      fence: (manager) => this.fence(manager, id),
      commit: (write) =>
        withTransaction(this.dataSource, async (manager) => {
          await this.fence(manager, id);
          return write(manager);
        }),
    };
  }

  /**
   * Locks `id` inside `manager`'s transaction if its lease still holds;
   * LeaseLostError otherwise. Stops renewing it (the commit moves its timer),
   * keeping its token: should the transaction roll back, a later commit (a
   * release of the claim) is fenced by the same token.
   */
  async fence(manager: EntityManager, id: string): Promise<void> {
    await this.renewalsSettled();
    const token = this.tokens.get(id);
    this.renewed.delete(id);
    if (this.renewed.size === 0) this.stop();
    const rows = token ? ((await manager.query(fenceSql(this.rows), [id, token])) as unknown[]) : [];
    if (rows.length === 0) throw new LeaseLostError(this.rows.table, id);
  }

  /** Gives `ids` back (due now, uncounted) where their lease still holds; answers how many moved. */
  async giveBack(ids: readonly string[]): Promise<number> {
    await this.renewalsSettled();
    let moved = 0;
    for (const [token, group] of this.groupByToken(ids.filter((id) => this.tokens.has(id)))) {
      for (const id of group) this.drop(id);
      const [, count] = (await this.dataSource.manager.query(giveBackHeldSql(this.rows), [group, token])) as [
        unknown,
        number,
      ];
      moved += count ?? 0;
    }
    return moved;
  }

  /**
   * Waits until no renewal is in flight or queued. A tick that queued one while
   * the awaited renewal ended would otherwise start it (reading the token about
   * to be fenced) before the caller's next step: its UPDATE moves the timer, and
   * the fence, holding the old token, finds its own live lease taken.
   */
  private async renewalsSettled(): Promise<void> {
    let awaited: Promise<void>;
    do {
      awaited = this.renewing;
      await awaited;
    } while (awaited !== this.renewing);
  }

  /** One renewal now (tests; the timer runs it otherwise). */
  renewNow(): Promise<void> {
    this.renewSoon();
    return this.renewing;
  }

  /** Queues a renewal behind the one in flight; ticks that come while one is queued add nothing. */
  private renewSoon(): void {
    if (this.renewalQueued) return;
    this.renewalQueued = true;
    this.renewing = this.renewing.then(() => {
      this.renewalQueued = false;
      return this.renew();
    });
  }

  /** Renews every held row, grouped by token (one statement for a batch claimed or renewed together). */
  private async renew(): Promise<void> {
    const held = [...this.renewed].filter((id) => !this.lost.has(id));
    for (const [token, group] of this.groupByToken(held)) {
      try {
        // queryRows: TypeORM answers an UPDATE … RETURNING as [rows, count], not as rows.
        const renewed = await queryRows<{ id: string; token: string }>(this.dataSource.manager, this.renewSql, [
          group,
          token,
          this.timing.leaseMs,
        ]);
        this.record(group, renewed);
      } catch (error) {
        // The next tick tries again; the lease outlasts at least one missed renewal.
        this.logger.warn('lease renewal failed; retried next tick', { table: this.rows.table, error });
      }
    }
  }

  private record(group: string[], renewed: Array<{ id: string; token: string }>): void {
    const newTokens = new Map(renewed.map((row) => [row.id, row.token]));
    for (const id of group) {
      if (!this.renewed.has(id)) continue; // dropped or fenced while the renewal ran
      const token = newTokens.get(id);
      if (token) this.tokens.set(id, token);
      else this.lost.add(id);
    }
  }

  /** `ids` grouped by their token, each group at most RENEWED_PER_STATEMENT_MAX long (one statement each). */
  private groupByToken(ids: string[]): Array<[string, string[]]> {
    const groups = new Map<string, string[]>();
    for (const id of ids) {
      const token = this.tokens.get(id)!;
      groups.set(token, [...(groups.get(token) ?? []), id]);
    }
    return [...groups].flatMap(([token, group]) =>
      Array.from({ length: Math.ceil(group.length / RENEWED_PER_STATEMENT_MAX) }, (_, index): [string, string[]] => [
        token,
        group.slice(index * RENEWED_PER_STATEMENT_MAX, (index + 1) * RENEWED_PER_STATEMENT_MAX),
      ]),
    );
  }
}
