import type { Logger } from '@platform/logger';
import type { UpstreamHealth } from '../http/dependencies';

/** One health probe of an upstream is given this long before it counts as failed. */
export const UPSTREAM_HEALTH_TIMEOUT_MS = 500;
/** Answers are reused this long, so a burst of /v1/health costs one probe per upstream. */
export const UPSTREAM_HEALTH_CACHE_MS = 1_000;

/** An upstream client: its breaker, and a health check over its own (already open, mutual-TLS) channel. */
export interface HealthTarget {
  name: string;
  client: { breaker: { opened: boolean }; serving(timeoutMs: number): Promise<boolean> };
}

/**
 * "degraded" when any upstream's breaker is open or its grpc.health.v1 check
 * does not answer SERVING in time. Concurrent callers share one probe.
 */
export class CachedUpstreamHealth implements UpstreamHealth {
  private cached: { atMs: number; status: Promise<'ok' | 'degraded'> } | null = null;
  private lastStatus: 'ok' | 'degraded' | null = null;

  constructor(
    private readonly targets: readonly HealthTarget[],
    private readonly logger: Logger,
    private readonly nowMs: () => number = Date.now,
  ) {}

  status(): Promise<'ok' | 'degraded'> {
    const now = this.nowMs();
    if (!this.cached || now - this.cached.atMs >= UPSTREAM_HEALTH_CACHE_MS) {
      this.cached = { atMs: now, status: this.check() };
    }
    return this.cached.status;
  }

  private async check(): Promise<'ok' | 'degraded'> {
    const results = await Promise.all(
      this.targets.map(async (target) => {
        const healthy =
          !target.client.breaker.opened && (await target.client.serving(UPSTREAM_HEALTH_TIMEOUT_MS).catch(() => false));
        return { name: target.name, healthy };
      }),
    );
    const unhealthy = results.filter((result) => !result.healthy).map((result) => result.name);
    const status = unhealthy.length === 0 ? 'ok' : 'degraded';
    if (status !== this.lastStatus) {
      if (status === 'degraded') this.logger.warn('upstreams degraded', { unhealthy });
      else if (this.lastStatus !== null) this.logger.info('upstreams healthy again');
      this.lastStatus = status;
    }
    return status;
  }
}
