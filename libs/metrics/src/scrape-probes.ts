/**
 * Gauges measured when Prometheus scrapes, from sources registered by the code
 * that knows how to measure them: a relay its outbox, a worker its due rows, a
 * service its database pool. One scrape runs each source once, bounded by
 * PROBE_TIMEOUT_MS, however many gauges it feeds. A source that fails or runs
 * out of time has its series dropped from that scrape (an absent series rather
 * than a stale value that looks healthy) and counts one
 * metrics_probe_failures_total; the next scrape tries again.
 *
 * A probe group is one per registry and name, so a second instance of the same
 * code in one process (a test's second relay) adds a source to it instead of
 * declaring the gauges again.
 */
import type { Gauge } from 'prom-client';
import { counter, gauge, metricsRegistry, Registry } from './registry';

/** Longer than a healthy measurement by far, well inside a scrape's timeout. */
export const PROBE_TIMEOUT_MS = 2_000;

export interface ProbeFamily {
  name: string;
  help: string;
}

/** One measurement: a value per family of the group. */
export type Reading<F extends string> = Record<F, number>;
export type Measure<F extends string> = () => Promise<Reading<F>> | Reading<F>;

interface Source<F extends string, L extends string> {
  labels: Record<L, string>;
  measure: Measure<F>;
}

const groups = new WeakMap<Registry, Map<string, ScrapeProbes<string, string>>>();

/**
 * The failures counter joins the scrape's measurements (the registry renders
 * its families concurrently), so a failure is counted in the scrape it left out.
 */
function failures(registry: Registry) {
  return counter(
    {
      name: 'metrics_probe_failures_total',
      help: 'Measurements taken at scrape time that failed or ran out of time (their series are left out of that scrape), by probe.',
      labelNames: ['probe'] as const,
      collect: async () => {
        await Promise.all([...(groups.get(registry)?.values() ?? [])].map((group) => group.refreshOnce()));
      },
    },
    registry,
  );
}

function withTimeout<T>(work: () => Promise<T> | T, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`measurement took over ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  return Promise.race([Promise.resolve().then(work), expired]).finally(() => clearTimeout(timer));
}

export class ScrapeProbes<F extends string, L extends string> {
  private readonly gauges: Array<[F, Gauge<L>]>;
  private readonly sources = new Map<string, Source<F, L>>();
  private refreshing: Promise<void> | null = null;

  private constructor(
    private readonly probe: string,
    families: Record<F, ProbeFamily>,
    labelNames: readonly L[],
    private readonly registry: Registry,
    private readonly timeoutMs: number,
  ) {
    failures(registry).inc({ probe }, 0);
    this.gauges = (Object.entries(families) as Array<[F, ProbeFamily]>).map(([key, family]) => [
      key,
      gauge<L>(
        {
          ...family,
          labelNames,
          collect: () => this.refreshOnce(),
        },
        registry,
      ),
    ]);
  }

  /** The probe group `probe` of the registry, declared on first use. */
  static group<F extends string, L extends string = never>(
    probe: string,
    families: Record<F, ProbeFamily>,
    labelNames: readonly L[] = [],
    registry: Registry = metricsRegistry,
    timeoutMs = PROBE_TIMEOUT_MS,
  ): ScrapeProbes<F, L> {
    const ofRegistry = groups.get(registry) ?? new Map<string, ScrapeProbes<string, string>>();
    groups.set(registry, ofRegistry);
    const existing = ofRegistry.get(probe);
    if (existing) return existing as unknown as ScrapeProbes<F, L>;
    const created = new ScrapeProbes<F, L>(probe, families, labelNames, registry, timeoutMs);
    ofRegistry.set(probe, created as unknown as ScrapeProbes<string, string>);
    return created;
  }

  /**
   * Measures `measure` at every scrape under `labels` (replacing a source with
   * the same labels). Returns the function that stops measuring it and drops its series.
   */
  add(labels: Record<L, string>, measure: Measure<F>): () => void {
    const key = JSON.stringify(labels);
    const source: Source<F, L> = { labels, measure };
    this.sources.set(key, source);
    return () => {
      if (this.sources.get(key) !== source) return;
      this.sources.delete(key);
      this.drop(labels);
    };
  }

  /** One refresh per scrape, shared by every gauge of the group (their collects start together). */
  refreshOnce(): Promise<void> {
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refresh(): Promise<void> {
    await Promise.all(
      [...this.sources.entries()].map(async ([key, source]) => {
        try {
          const reading = await withTimeout(source.measure, this.timeoutMs);
          if (this.sources.get(key) !== source) return;
          for (const [family, metric] of this.gauges) metric.set(source.labels, reading[family]);
        } catch {
          this.drop(source.labels);
          failures(this.registry).inc({ probe: this.probe });
        }
      }),
    );
  }

  private drop(labels: Record<L, string>): void {
    for (const [, metric] of this.gauges) metric.remove(labels);
  }
}
