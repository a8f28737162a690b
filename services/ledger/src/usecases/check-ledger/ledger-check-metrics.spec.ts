// Proves each ledger reconciliation run is counted by result, each failing
// check by name, and the time of the run kept; both results exist at zero from
// the start, so an alert on failures reads a zero rather than nothing.
import { Registry } from '@platform/metrics';
import { LedgerCheckMetrics } from './ledger-check-metrics';

describe('LedgerCheckMetrics', () => {
  it('counts runs by result and failing checks by name', async () => {
    const registry = new Registry();
    const metrics = new LedgerCheckMetrics(registry);
    expect(await registry.metrics()).toContain('ledger_check_runs_total{result="failed"} 0');
    metrics.ran(
      [
        { name: 'entries_balanced', ok: true },
        { name: 'currency_sums_to_zero', ok: true },
      ],
      1_700_000_000_000,
    );
    metrics.ran(
      [
        { name: 'entries_balanced', ok: false },
        { name: 'currency_sums_to_zero', ok: true },
      ],
      1_700_000_060_000,
    );
    const text = await registry.metrics();
    expect(text).toContain('ledger_check_runs_total{result="passed"} 1');
    expect(text).toContain('ledger_check_runs_total{result="failed"} 1');
    expect(text).toContain('ledger_check_failures_total{check="entries_balanced"} 1');
    expect(text).not.toContain('ledger_check_failures_total{check="currency_sums_to_zero"}');
    expect(text).toMatch(/^ledger_check_last_run_timestamp_seconds 1700000060$/m);
  });
});
