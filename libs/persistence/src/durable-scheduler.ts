/**
 * The claim/lease/drain primitive of the services' row-driven work (trading's
 * orders; payouts' instructions, transfers, USDT sends, batches and prompt
 * credits; wallet-registry's notices), on the shared WorkLoop: every replica
 * polls for rows whose timer has passed, claims a bounded batch (the caller's
 * claimDue: FOR UPDATE SKIP LOCKED, leased by moving the timer ahead) and runs
 * each one's step in the claim's order. A step either moves its row on (done,
 * or rescheduled by the step itself) or fails:
 * - failed because a dependency is unavailable (isUnavailable: a gRPC
 *   UNAVAILABLE or DEADLINE_EXCEEDED, an open breaker): the row is given back
 *   at once (lease cleared, attempt not counted; releaseClaims), so a replica
 *   with a healthy path takes it within its interval, and this one backs off
 *   after the pass. The batch goes on while the readiness gate stays open (rows
 *   of another kind may not need what failed); once it closes, the rest of the
 *   batch is given back too;
 * - failed otherwise: the row keeps its lease and is retried when it passes.
 * Leases are short (`leaseMs`, LEASE_MS_DEFAULT 3 s) and renewed by their live
 * owner (HeldLeases, lease.ts): every row of the batch not yet finished is
 * renewed every `renewEveryMs` while the pass runs, so a long step or a long
 * batch never loses its rows, and a replica that dies (SIGKILL) leaves them to
 * be retaken at most `leaseMs` after its last renewal. Each claim's timer value
 * is its lease token (claimDueSql returns it as `leaseToken`): a step gets its
 * row's StepLease and fences its final commit with it (lease.commit or
 * lease.fence inside its transaction), so a slow owner whose lease another
 * replica took can never commit over it (LeaseLostError: the step's work is
 * dropped, logged, counted neither as a failure nor as given back). A row a
 * renewal finds taken before its step started is skipped.
 * While the work's readiness gate is closed (a dependency it needs looks
 * unreachable) this replica claims nothing. At stop, rows claimed but not
 * started are given back, and the step in flight is waited for within the
 * drain bound; past it, its row keeps its lease (still renewed while the
 * process lives). Every step must be safe to run again. A full batch means
 * more are due: the next pass starts at once. Each scheduler reports as a worker named like its work
 * (@platform/metrics WorkerMetrics): claims, failed steps and passes, claims
 * given back, pass durations, and its due rows and their lag.
 */
import type { Logger } from '@platform/logger';
import type { DueBacklog } from '@platform/metrics';
import type { DataSource, EntityManager } from 'typeorm';
import { DueRows, dueRowsProbe } from './due-rows';
import { withTransaction } from './data-source';
import { HeldLeases, isLeaseLost, LEASE_MS_DEFAULT, renewEveryMsFor, StepLease } from './lease';
import { MeteredWorker } from './metered-worker';
import { isUnavailable, PassOutcome, ReadinessGate } from './work-loop';

export interface DueWork<T> {
  /** What the logs and the metrics' `worker` label call it ("order", "transfer", "usdt_send"). */
  name: string;
  /** Where its timers are, as claimDue reads them: measured for worker_due_rows and worker_lag_seconds; with `idColumn`, claims can be given back. */
  dueRows: DueRows;
  /** Claims up to `limit` due rows leased `leaseMs` ahead, each with its lease token (claimDueSql's `leaseToken`). */
  claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<T[]>;
  idOf(item: T): string;
  /** The step; its final commit goes through `lease` (commit, or fence inside its own transaction). */
  run(item: T, lease: StepLease): Promise<void>;
  /** The claim's lease token of a row; by default its `leaseToken` (what claimDueSql returns). */
  tokenOf?(item: T): string | undefined;
  /** True while what the steps need looks reachable (cheap, no network); claims nothing otherwise. */
  ready?: ReadinessGate;
}

export interface SchedulerOptions {
  intervalMs: number;
  batchSize: number;
  /** How long a claim holds a row without renewal; LEASE_MS_DEFAULT when unset. */
  leaseMs?: number;
  /** How often the live owner renews its rows' leases; a third of the lease when unset (at most half of it). */
  renewEveryMs?: number;
  /** How long stop() waits for the step in flight; default DRAIN_MS_DEFAULT. */
  drainMs?: number;
}

export class DurableScheduler<T> extends MeteredWorker {
  private readonly leaseMs: number;
  private readonly renewEveryMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly work: DueWork<T>,
    private readonly logger: Logger,
    private readonly options: SchedulerOptions,
  ) {
    super(work.name, logger, {
      name: work.name,
      intervalMs: options.intervalMs,
      drainMs: options.drainMs,
      ready: work.ready,
    });
    this.leaseMs = options.leaseMs ?? LEASE_MS_DEFAULT;
    this.renewEveryMs = options.renewEveryMs ?? renewEveryMsFor(this.leaseMs);
    // Checks the lease's timing and the rows' key once, at construction (a bad one stops the start).
    new HeldLeases(dataSource, work.dueRows, { leaseMs: this.leaseMs, renewEveryMs: this.renewEveryMs }, logger);
  }

  protected dueProbe(): () => Promise<DueBacklog> {
    return dueRowsProbe(this.dataSource, this.work.dueRows);
  }

  protected async pass(): Promise<PassOutcome> {
    return this.metrics.pass(async () => {
      const due = await withTransaction(this.dataSource, (manager) =>
        this.work.claimDue(manager, this.options.batchSize, this.leaseMs),
      );
      this.metrics.claimed(due.length);
      if (due.length === 0) return 'idle';
      const leases = this.hold(due);
      try {
        const { givenBack, metUnavailable } = await this.runSteps(due, leases);
        await this.giveBack(givenBack, leases);
        if (metUnavailable) return 'unavailable';
      } finally {
        leases.stop();
      }
      return due.length === this.options.batchSize ? 'more' : 'idle';
    });
  }

  /** The batch's leases, renewed from now until the pass ends. */
  private hold(due: T[]): HeldLeases {
    const leases = new HeldLeases(
      this.dataSource,
      this.work.dueRows,
      { leaseMs: this.leaseMs, renewEveryMs: this.renewEveryMs },
      this.logger,
    );
    for (const item of due) {
      const token = this.work.tokenOf ? this.work.tokenOf(item) : (item as { leaseToken?: string }).leaseToken;
      // A claim without its token cannot be renewed or fenced: a bug in the claim's SQL, not a runtime condition.
      if (!token) throw new Error(`${this.work.name} claim answered no lease token (claimDueSql returns leaseToken)`);
      leases.hold(this.work.idOf(item), token);
    }
    return leases;
  }

  /**
   * Runs the steps in claim order; answers the rows to give back (those that met
   * an unavailable dependency, and the rest once stopping or the gate closed).
   * A row whose lease a renewal found taken is skipped: another replica has it.
   */
  private async runSteps(due: T[], leases: HeldLeases): Promise<{ givenBack: T[]; metUnavailable: boolean }> {
    const givenBack: T[] = [];
    let metUnavailable = false;
    for (const [index, item] of due.entries()) {
      if (this.loop.stopping || !(this.work.ready?.() ?? true)) {
        givenBack.push(...due.slice(index));
        break;
      }
      const id = this.work.idOf(item);
      if (!leases.isHeld(id)) {
        this.logger.warn(`${this.work.name} row taken by another owner before its step; skipped`, { id });
        leases.drop(id);
        continue;
      }
      if (await this.runStep(item, leases.stepLease(id))) {
        leases.drop(id);
        continue;
      }
      givenBack.push(item); // still held: given back by its token after the batch
      metUnavailable = true;
    }
    return { givenBack, metUnavailable };
  }

  /** Runs one step; false when it met an unavailable dependency (its row is to be given back). */
  private async runStep(item: T, lease: StepLease): Promise<boolean> {
    try {
      await this.work.run(item, lease);
      return true;
    } catch (error) {
      if (isUnavailable(error)) {
        this.logger.warn(`${this.work.name} step met an unavailable dependency; giving it back`, {
          id: this.work.idOf(item),
          error: (error as Error).message,
        });
        return false;
      }
      if (isLeaseLost(error)) {
        // Another replica holds the row now and runs the step itself: nothing to give back, no failure.
        this.logger.warn(`${this.work.name} step's lease passed to another owner; its commit dropped`, {
          id: this.work.idOf(item),
        });
        return true;
      }
      // The lease brings it back; a persistent failure shows in the logs every lease.
      this.metrics.failed();
      this.logger.error(`${this.work.name} step failed; retried when its lease passes`, {
        id: this.work.idOf(item),
        error,
      });
      return true;
    }
  }

  /** Gives rows back (due now, uncounted) where this pass's lease on them still holds. */
  private async giveBack(items: T[], leases: HeldLeases): Promise<void> {
    if (items.length === 0) return;
    const released = await leases.giveBack(items.map((item) => this.work.idOf(item)));
    this.metrics.released(released);
  }
}
