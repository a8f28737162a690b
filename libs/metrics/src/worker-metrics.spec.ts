// Proves every worker reports the same families under its own `worker` label:
// claims, claims given back, failures (a pass that throws counts one and is rethrown), pass durations,
// and its due rows and lag measured at scrape; and that the series of a worker
// exist at zero from the start.
import { Registry } from './registry';
import { WorkerMetrics } from './worker-metrics';

describe('WorkerMetrics', () => {
  it('counts claims and failures per worker, from zero', async () => {
    const registry = new Registry();
    const orders = new WorkerMetrics('order', registry);
    new WorkerMetrics('payout', registry);
    orders.claimed(3);
    orders.claimed(0);
    orders.failed();
    orders.released(2);
    const text = await registry.metrics();
    expect(text).toContain('worker_releases_total{worker="order"} 2');
    expect(text).toContain('worker_releases_total{worker="payout"} 0');
    expect(text).toContain('worker_claims_total{worker="order"} 3');
    expect(text).toContain('worker_failures_total{worker="order"} 1');
    expect(text).toContain('worker_claims_total{worker="payout"} 0');
    expect(text).toContain('worker_failures_total{worker="payout"} 0');
  });

  it('times passes, and counts a pass that throws as a failure before rethrowing it', async () => {
    const registry = new Registry();
    const worker = new WorkerMetrics('order', registry);
    await expect(worker.pass(async () => 5)).resolves.toBe(5);
    await expect(
      worker.pass(async () => {
        throw new Error('database away');
      }),
    ).rejects.toThrow('database away');
    const text = await registry.metrics();
    expect(text).toContain('worker_pass_duration_seconds_count{worker="order"} 2');
    expect(text).toContain('worker_failures_total{worker="order"} 1');
  });

  it('reports due rows and lag in seconds at scrape, until told to stop', async () => {
    const registry = new Registry();
    const worker = new WorkerMetrics('order', registry);
    const stop = worker.watchDue(async () => ({ dueRows: 12, oldestDueAgeMs: 2_500 }));
    const text = await registry.metrics();
    expect(text).toContain('worker_due_rows{worker="order"} 12');
    expect(text).toContain('worker_lag_seconds{worker="order"} 2.5');
    stop();
    expect(await registry.metrics()).not.toContain('worker_due_rows{worker="order"}');
  });
});
