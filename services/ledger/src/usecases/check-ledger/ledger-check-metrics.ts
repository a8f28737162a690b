/**
 * The outcome of every ledger reconciliation run (`ops ledger check`, or any
 * schedule that calls CheckLedger): whichever replica ran it counts it, so the
 * alert reads the sum over replicas.
 * - ledger_check_runs_total{result}: runs that passed or failed;
 * - ledger_check_failures_total{check}: per check that found a problem (the
 *   checks are a fixed list: currency_sums_to_zero, entries_balanced, …);
 * - ledger_check_last_run_timestamp_seconds: when this replica last ran one.
 */
import { counter, gauge, metricsRegistry, MS_PER_SECOND, Registry } from '@platform/metrics';

export class LedgerCheckMetrics {
  private readonly runs;
  private readonly failures;
  private readonly lastRun;

  constructor(registry: Registry = metricsRegistry) {
    this.runs = counter(
      {
        name: 'ledger_check_runs_total',
        help: 'Ledger reconciliation runs, by result (passed, failed).',
        labelNames: ['result'] as const,
      },
      registry,
    );
    this.failures = counter(
      {
        name: 'ledger_check_failures_total',
        help: 'Ledger reconciliation checks that found a problem, by check.',
        labelNames: ['check'] as const,
      },
      registry,
    );
    this.lastRun = gauge(
      {
        name: 'ledger_check_last_run_timestamp_seconds',
        help: 'When this replica last ran the ledger reconciliation (Unix time).',
      },
      registry,
    );
    this.runs.inc({ result: 'passed' }, 0);
    this.runs.inc({ result: 'failed' }, 0);
  }

  ran(checks: ReadonlyArray<{ name: string; ok: boolean }>, atMs: number): void {
    const failed = checks.filter((check) => !check.ok);
    this.runs.inc({ result: failed.length === 0 ? 'passed' : 'failed' });
    for (const check of failed) this.failures.inc({ check: check.name });
    this.lastRun.set(atMs / MS_PER_SECOND);
  }
}
