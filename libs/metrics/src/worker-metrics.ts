/**
 * The same families for every background loop that works through due rows
 * (trading's orders, payouts' instructions and transfers, the ledger's
 * sweepers, collections' steps, webhook deliveries), told apart by the
 * `worker` label:
 * - worker_due_rows, worker_lag_seconds: measured at scrape from the rows
 *   themselves (how many are due and not held by any replica, and how long the
 *   oldest has waited past its due time), so a stalled or dead loop shows;
 * - worker_claims_total: rows taken to work on;
 * - worker_releases_total: claimed rows given back unworked (a dependency
 *   unavailable, or the replica stopping), for another replica to take;
 * - worker_failures_total: steps or whole passes that failed (retried later);
 * - worker_pass_duration_seconds: how long each pass took.
 */
import type { Counter, Histogram } from 'prom-client';
import { counter, histogram, metricsRegistry, MS_PER_SECOND, Registry } from './registry';
import { ScrapeProbes } from './scrape-probes';

/** What a worker's due rows look like at one scrape. */
export interface DueBacklog {
  /** Rows due and not held by any replica (a bounded count). */
  dueRows: number;
  /** How long the oldest of them has waited past its due time; 0 when none is due. */
  oldestDueAgeMs: number;
}

const PASS_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

type WorkerLabel = 'worker';

function dueProbes(registry: Registry) {
  return ScrapeProbes.group(
    'worker_due',
    {
      dueRows: {
        name: 'worker_due_rows',
        help: 'Rows due now that no replica holds, per worker, counted at scrape (up to a bound).',
      },
      lagSeconds: {
        name: 'worker_lag_seconds',
        help: 'How long the oldest due row has waited past its due time, per worker, at scrape; 0 when none is due.',
      },
    },
    ['worker'] as const,
    registry,
  );
}

export class WorkerMetrics {
  private readonly claims: Counter<WorkerLabel>;
  private readonly failures: Counter<WorkerLabel>;
  private readonly releases: Counter<WorkerLabel>;
  private readonly passSeconds: Histogram<WorkerLabel>;

  /** `worker` names the loop in snake case: "order", "payout", "expired_holds". */
  constructor(
    readonly worker: string,
    private readonly registry: Registry = metricsRegistry,
  ) {
    this.claims = counter(
      { name: 'worker_claims_total', help: 'Due rows a worker took to work on.', labelNames: ['worker'] as const },
      registry,
    );
    this.failures = counter(
      {
        name: 'worker_failures_total',
        help: 'Steps or whole passes of a worker that failed; the rows are retried later.',
        labelNames: ['worker'] as const,
      },
      registry,
    );
    this.releases = counter(
      {
        name: 'worker_releases_total',
        help: 'Claimed rows a worker gave back unworked (a dependency unavailable, or stopping) for another replica.',
        labelNames: ['worker'] as const,
      },
      registry,
    );
    this.passSeconds = histogram(
      {
        name: 'worker_pass_duration_seconds',
        help: 'How long one pass of a worker took (claim and steps).',
        labelNames: ['worker'] as const,
        buckets: PASS_SECONDS_BUCKETS,
      },
      registry,
    );
    // Every worker's series exist from the start, so rates and alerts see a zero rather than nothing.
    this.claims.inc({ worker }, 0);
    this.failures.inc({ worker }, 0);
    this.releases.inc({ worker }, 0);
  }

  claimed(count: number): void {
    if (count > 0) this.claims.inc({ worker: this.worker }, count);
  }

  released(count: number): void {
    if (count > 0) this.releases.inc({ worker: this.worker }, count);
  }

  failed(count = 1): void {
    this.failures.inc({ worker: this.worker }, count);
  }

  /** Runs one pass and observes its duration; a pass that throws counts one failure and is rethrown. */
  async pass<T>(work: () => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    try {
      return await work();
    } catch (error) {
      this.failed();
      throw error;
    } finally {
      this.passSeconds.observe({ worker: this.worker }, (performance.now() - startedAt) / MS_PER_SECOND);
    }
  }

  /** Measures the worker's due rows at every scrape; returns the function that stops it. */
  watchDue(measure: () => Promise<DueBacklog>): () => void {
    return dueProbes(this.registry).add({ worker: this.worker }, async () => {
      const backlog = await measure();
      return { dueRows: backlog.dueRows, lagSeconds: backlog.oldestDueAgeMs / MS_PER_SECOND };
    });
  }
}
