// Proves the endpoint serves the registry, with Node's process metrics, at GET
// /metrics only; answers 500 (not a partial body) when the registry cannot be
// rendered; and stops listening on close().
import { startMetricsServer } from './metrics-server';
import { counter, gauge, Registry } from './registry';

describe('startMetricsServer', () => {
  it('serves the registry and the process metrics at GET /metrics, and 404 elsewhere', async () => {
    const registry = new Registry();
    counter({ name: 'things_total', help: 'Things.' }, registry).inc(3);
    const server = await startMetricsServer({ port: 0, registry });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const text = await response.text();
      expect(text).toMatch(/^things_total 3$/m);
      expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
      expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
    }
    await expect(fetch(`http://127.0.0.1:${server.port}/metrics`)).rejects.toThrow();
  });

  it('answers 500 when a family cannot be collected', async () => {
    const registry = new Registry();
    gauge(
      {
        name: 'broken',
        help: 'Broken.',
        collect: () => {
          throw new Error('boom');
        },
      },
      registry,
    );
    const server = await startMetricsServer({ port: 0, registry });
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(response.status).toBe(500);
      expect(await response.text()).toBe('');
    } finally {
      await server.close();
    }
  });
});
