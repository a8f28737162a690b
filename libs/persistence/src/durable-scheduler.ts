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
 * While the work's readiness gate is closed (a dependency it needs looks
 * unreachable) this replica claims nothing. At stop, rows claimed but not
 * started are given back, and the step in flight is waited for within the
 * drain bound; past it, its row keeps its lease. A replica that dies mid-step
 * leaves the row to be retaken when the lease passes, so every step must be
 * safe to run again. A full batch means more are due: the next pass starts at
 * once. Each scheduler reports as a worker named like its work
 * (@platform/metrics WorkerMetrics): claims, failed steps and passes, claims
 * given back, pass durations, and its due rows and their lag.
 */
import type { Logger } from '@platform/logger';
import type { DueBacklog } from '@platform/metrics';
import type { DataSource, EntityManager } from 'typeorm';
import { DueRows, dueRowsProbe, releaseClaims } from './due-rows';
import { withTransaction } from './data-source';
import { MeteredWorker } from './metered-worker';
import { isUnavailable, PassOutcome, ReadinessGate } from './work-loop';

export interface DueWork<T> {
  /** What the logs and the metrics' `worker` label call it ("order", "transfer", "usdt_send"). */
  name: string;
  /** Where its timers are, as claimDue reads them: measured for worker_due_rows and worker_lag_seconds; with `idColumn`, claims can be given back. */
  dueRows: DueRows;
  claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<T[]>;
  idOf(item: T): string;
  run(item: T): Promise<void>;
  /** True while what the steps need looks reachable (cheap, no network); claims nothing otherwise. */
  ready?: ReadinessGate;
}

export interface SchedulerOptions {
  intervalMs: number;
  batchSize: number;
  leaseMs: number;
  /** How long stop() waits for the step in flight; default DRAIN_MS_DEFAULT. */
  drainMs?: number;
}

export class DurableScheduler<T> extends MeteredWorker {
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
  }

  protected dueProbe(): () => Promise<DueBacklog> {
    return dueRowsProbe(this.dataSource, this.work.dueRows);
  }

  protected async pass(): Promise<PassOutcome> {
    return this.metrics.pass(async () => {
      const due = await withTransaction(this.dataSource, (manager) =>
        this.work.claimDue(manager, this.options.batchSize, this.options.leaseMs),
      );
      this.metrics.claimed(due.length);
      const { givenBack, metUnavailable } = await this.runSteps(due);
      await this.giveBack(givenBack);
      if (metUnavailable) return 'unavailable';
      return due.length === this.options.batchSize ? 'more' : 'idle';
    });
  }

  /**
   * Runs the steps in claim order; answers the rows to give back (those that met
   * an unavailable dependency, and the rest once stopping or the gate closed).
   */
  private async runSteps(due: T[]): Promise<{ givenBack: T[]; metUnavailable: boolean }> {
    const givenBack: T[] = [];
    let metUnavailable = false;
    for (const [index, item] of due.entries()) {
      if (this.loop.stopping || !(this.work.ready?.() ?? true)) {
        givenBack.push(...due.slice(index));
        break;
      }
      if (await this.runStep(item)) continue;
      givenBack.push(item);
      metUnavailable = true;
    }
    return { givenBack, metUnavailable };
  }

  /** Runs one step; false when it met an unavailable dependency (its row is to be given back). */
  private async runStep(item: T): Promise<boolean> {
    try {
      await this.work.run(item);
      return true;
    } catch (error) {
      if (isUnavailable(error)) {
        this.logger.warn(`${this.work.name} step met an unavailable dependency; giving it back`, {
          id: this.work.idOf(item),
          error: (error as Error).message,
        });
        return false;
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

  private async giveBack(items: T[]): Promise<void> {
    if (items.length === 0 || !this.work.dueRows.idColumn) return; // without a key the rows keep their lease
    const released = await releaseClaims(this.dataSource.manager, this.work.dueRows, items.map(this.work.idOf));
    this.metrics.released(released);
  }
}
