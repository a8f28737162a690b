// Proves that a family declared twice in one process is the same family (a second
// server or client in one process shares it), and that declaring a name again as
// another type or with other labels is refused as the bug it is.
import { counter, gauge, histogram, Registry } from './registry';

describe('declaring families', () => {
  it('returns the family already registered under the name', () => {
    const registry = new Registry();
    const first = counter({ name: 'things_total', help: 'Things.', labelNames: ['kind'] }, registry);
    const second = counter({ name: 'things_total', help: 'Things.', labelNames: ['kind'] }, registry);
    expect(second).toBe(first);
    expect(registry.getMetricsAsArray()).toHaveLength(1);
  });

  it('refuses the name as another type, or with other labels', () => {
    const registry = new Registry();
    counter({ name: 'things_total', help: 'Things.', labelNames: ['kind'] }, registry);
    expect(() => gauge({ name: 'things_total', help: 'Things.', labelNames: ['kind'] }, registry)).toThrow(
      /another type/,
    );
    expect(() => counter({ name: 'things_total', help: 'Things.', labelNames: ['colour'] }, registry)).toThrow(
      /labels \[kind\]/,
    );
  });

  it('gives histograms the shared latency buckets unless told otherwise', async () => {
    const registry = new Registry();
    histogram({ name: 'wait_seconds', help: 'Waits.' }, registry).observe(0.003);
    histogram({ name: 'custom_seconds', help: 'Custom.', buckets: [1, 2] }, registry).observe(1.5);
    const text = await registry.metrics();
    expect(text).toContain('wait_seconds_bucket{le="0.0025"} 0');
    expect(text).toContain('wait_seconds_bucket{le="0.005"} 1');
    expect(text).toContain('custom_seconds_bucket{le="2"} 1');
    expect(text).not.toContain('custom_seconds_bucket{le="0.005"}');
  });
});
