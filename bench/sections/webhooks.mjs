// Webhook deliveries per second for one and for two webhook-delivery workers, the receiver
// answering after 20 ms: `npm run bench:webhooks` (bench/webhook-delivery.mjs), run once this
// run's stack is stopped (it starts its own workers on the same slot's infrastructure).
import { childBench } from '../lib/child-bench.mjs';

const SECTION = 'webhook delivery, receiver answering after 20 ms';

export async function webhooksSection(ctx) {
  const result = await childBench('webhook-delivery.mjs', 'webhook-delivery-', {});
  const byWorkers = Object.fromEntries(result.results.map((run) => [run.workers, run]));
  const latency = (run) =>
    `publish→ack p50 / p99 ${run.p50Ms.toFixed(1)} / ${run.p99Ms.toFixed(1)} ms at ${result.latencyRatePerSecond ?? 50}/s`;
  const one = byWorkers[1];
  const two = byWorkers[2];
  if (one)
    ctx.rows.push({
      section: SECTION,
      id: 'webhooks.oneWorker',
      figure: `deliveries/s, one worker, burst of ${result.burstEvents} (${latency(one)})`,
      value: Math.round(one.deliveriesPerSecond),
    });
  if (two) {
    ctx.rows.push({
      section: SECTION,
      id: one ? 'webhooks.twoWorkers' : undefined,
      figure: `deliveries/s, two workers (${latency(two)}; ${ctx.machine.cpus} CPUs)`,
      value: Math.round(two.deliveriesPerSecond),
      ceiling: one ? 'one worker, deliveries/s' : undefined,
      ceilingValue: one ? Math.round(one.deliveriesPerSecond) : undefined,
    });
  }
  return result;
}
