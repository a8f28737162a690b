// Proves that gauges measured at scrape time run each source once per scrape
// however many gauges it feeds; that a failing or slow source has its series left
// out of that scrape and is counted, then measured again at the next; and that a
// removed source's series are gone.
import { Registry } from './registry';
import { ScrapeProbes } from './scrape-probes';

const FAMILIES = {
  depth: { name: 'queue_depth', help: 'Depth.' },
  ageSeconds: { name: 'queue_age_seconds', help: 'Age.' },
};

function group(registry: Registry, timeoutMs = 2_000) {
  return ScrapeProbes.group('queue', FAMILIES, ['queue'] as const, registry, timeoutMs);
}

describe('ScrapeProbes', () => {
  it('measures each source once per scrape for all its gauges', async () => {
    const registry = new Registry();
    let measured = 0;
    group(registry).add({ queue: 'a' }, () => {
      measured += 1;
      return { depth: 4, ageSeconds: 1.5 };
    });
    group(registry).add({ queue: 'b' }, async () => ({ depth: 0, ageSeconds: 0 }));
    const text = await registry.metrics();
    expect(measured).toBe(1);
    expect(text).toContain('queue_depth{queue="a"} 4');
    expect(text).toContain('queue_age_seconds{queue="a"} 1.5');
    expect(text).toContain('queue_depth{queue="b"} 0');
    await registry.metrics();
    expect(measured).toBe(2);
  });

  it('leaves a failing or slow source out of the scrape, counts it, and measures it again next time', async () => {
    const registry = new Registry();
    let failing = true;
    group(registry, 50).add({ queue: 'a' }, async () => {
      if (failing) throw new Error('database away');
      return { depth: 2, ageSeconds: 0 };
    });
    group(registry, 50).add({ queue: 'slow' }, () => new Promise(() => undefined));
    const first = await registry.metrics();
    expect(first).not.toContain('queue_depth{queue=');
    expect(first).toContain('metrics_probe_failures_total{probe="queue"} 2');
    failing = false;
    const second = await registry.metrics();
    expect(second).toContain('queue_depth{queue="a"} 2');
    expect(second).not.toContain('queue="slow"');
  });

  it('drops a removed source, and a replaced one stays', async () => {
    const registry = new Registry();
    const remove = group(registry).add({ queue: 'a' }, () => ({ depth: 1, ageSeconds: 0 }));
    expect(await registry.metrics()).toContain('queue_depth{queue="a"} 1');
    remove();
    expect(await registry.metrics()).not.toContain('queue="a"');
    const removeOld = group(registry).add({ queue: 'b' }, () => ({ depth: 1, ageSeconds: 0 }));
    group(registry).add({ queue: 'b' }, () => ({ depth: 7, ageSeconds: 0 }));
    removeOld();
    expect(await registry.metrics()).toContain('queue_depth{queue="b"} 7');
  });
});
