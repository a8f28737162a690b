/**
 * The outbox relay's metrics. Each service scrapes as its own target, so the
 * series are per producing service by their `job` (and `pod`) labels.
 * - outbox_unpublished_events, outbox_oldest_unpublished_age_seconds: the
 *   backlog, measured at scrape by a bounded indexed query (OutboxRelay.measureLag);
 * - outbox_relay_publish_seconds: publishing one batch until the broker confirmed it;
 * - outbox_events_published_total, outbox_relay_failures_total.
 */
import { counter, histogram, metricsRegistry, MS_PER_SECOND, Registry, ScrapeProbes } from '@platform/metrics';
import type { OutboxLag } from './relay';

export class RelayMetrics {
  private readonly publishSeconds;
  private readonly published;
  private readonly failures;

  constructor(private readonly registry: Registry = metricsRegistry) {
    this.publishSeconds = histogram(
      {
        name: 'outbox_relay_publish_seconds',
        help: "Time to publish one batch of outbox events and receive the broker's confirms.",
      },
      registry,
    );
    this.published = counter(
      { name: 'outbox_events_published_total', help: 'Outbox events published, confirmed and marked published.' },
      registry,
    );
    this.failures = counter(
      {
        name: 'outbox_relay_failures_total',
        help: 'Relay passes that failed (broker or database away, confirms late); retried.',
      },
      registry,
    );
  }

  /** Measures the backlog at every scrape; returns the function that stops it. */
  watchBacklog(measure: () => Promise<OutboxLag>): () => void {
    const probes = ScrapeProbes.group(
      'outbox',
      {
        unpublished: {
          name: 'outbox_unpublished_events',
          help: 'Outbox events not yet published, at scrape (counted up to 100 000).',
        },
        oldestAgeSeconds: {
          name: 'outbox_oldest_unpublished_age_seconds',
          help: 'Age of the oldest unpublished outbox event, at scrape; 0 when none waits.',
        },
      },
      [],
      this.registry,
    );
    return probes.add({}, async () => {
      const lag = await measure();
      return { unpublished: lag.unpublished, oldestAgeSeconds: lag.oldestAgeMs / MS_PER_SECOND };
    });
  }

  batchConfirmed(durationMs: number): void {
    this.publishSeconds.observe(durationMs / MS_PER_SECOND);
  }

  eventsPublished(count: number): void {
    if (count > 0) this.published.inc(count);
  }

  batchFailed(): void {
    this.failures.inc();
  }
}
