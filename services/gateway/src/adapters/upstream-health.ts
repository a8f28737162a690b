import type { Logger } from '@platform/logger';
import type { UpstreamHealth } from '../http/dependencies';

/** One health probe of an upstream is given this long before it counts as failed. */
export const UPSTREAM_HEALTH_TIMEOUT_MS = 500;
/** A verdict this old is refreshed: the request that finds it answers with it while the probes run. */
export const UPSTREAM_HEALTH_CACHE_MS = 1_000;
/**
 * A verdict older than this (no /v1/health for a while) is not given out: the
 * request waits for fresh probes. So an answer is at most this old, plus one probe.
 */
export const UPSTREAM_HEALTH_STALE_MS_MAX = 3_000;

type HealthStatus = 'ok' | 'degraded';

/** An upstream client: its breaker, and a health check over its own (already open, mutual-TLS) channel. */
export interface HealthTarget {
  name: string;
  client: { breaker: { opened: boolean }; serving(timeoutMs: number): Promise<boolean> };
}

/**
 * "degraded" when any upstream's breaker is open or its grpc.health.v1 check
 * does not answer SERVING in time. Concurrent callers share one probe. A
 * partner's /v1/health does not wait for the probes while the last verdict is
 * at most UPSTREAM_HEALTH_STALE_MS_MAX old: past UPSTREAM_HEALTH_CACHE_MS it
 * starts them and answers with that verdict (before, one request a second
 * waited for six round trips, up to the probe timeout). An open breaker is read
 * at every request, so it degrades the answer at once.
 */
export class CachedUpstreamHealth implements UpstreamHealth {
  /** The last verdict and when its probes started. */
  private settled: { atMs: number; status: HealthStatus } | null = null;
  private probing: Promise<HealthStatus> | null = null;
  private lastStatus: HealthStatus | null = null;

  constructor(
    private readonly targets: readonly HealthTarget[],
    private readonly logger: Logger,
    private readonly nowMs: () => number = Date.now,
  ) {}

  status(): Promise<HealthStatus> {
    const settled = this.settled;
    const ageMs = settled ? this.nowMs() - settled.atMs : Infinity;
    if (settled && ageMs < UPSTREAM_HEALTH_CACHE_MS) return Promise.resolve(this.withBreakers(settled.status));
    if (!settled || ageMs >= UPSTREAM_HEALTH_STALE_MS_MAX) return this.probe();
    // Started once this answer is written, so its six calls do not delay it; nobody waits
    // for it, so a failure of its own (the probes themselves never throw) must not go unhandled.
    setImmediate(() => this.probe().catch(() => undefined));
    return Promise.resolve(this.withBreakers(settled.status));
  }

  /** The verdict, degraded at once should a breaker have opened since it was made. */
  private withBreakers(status: HealthStatus): HealthStatus {
    return this.targets.some((target) => target.client.breaker.opened) ? 'degraded' : status;
  }

  /** The probes in flight, or new ones; their verdict becomes the settled one. */
  private probe(): Promise<HealthStatus> {
    if (this.probing) return this.probing;
    const startedAtMs = this.nowMs();
    this.probing = this.check().then(
      (status) => {
        this.settled = { atMs: startedAtMs, status };
        this.probing = null;
        return status;
      },
      (error: unknown) => {
        this.probing = null;
        throw error;
      },
    );
    return this.probing;
  }

  private async check(): Promise<HealthStatus> {
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
