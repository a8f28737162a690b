/**
 * The process's one registry, and how families are declared on it. A family is
 * declared where it is counted (the gRPC wrapper, the relay, a worker), and may
 * be declared again by a second instance of the same code in one process (two
 * servers in a test, a second client): declaring returns the family already
 * registered under that name, and refuses one of another type or other labels,
 * which would be a bug. Labels are always bounded sets (methods, routes, codes,
 * upstreams, workers); never ids, keys, URLs or amounts.
 */
import {
  collectDefaultMetrics,
  Counter,
  CounterConfiguration,
  Gauge,
  GaugeConfiguration,
  Histogram,
  HistogramConfiguration,
  Registry,
} from 'prom-client';

export { Registry };
export type { Counter, Gauge, Histogram };

/** Every metric of the process is registered here and served on METRICS_PORT. */
export const metricsRegistry = new Registry();

/** Latency buckets (seconds) shared by request, call and pass durations: 1 ms to 10 s. */
export const LATENCY_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const MS_PER_SECOND = 1_000;

type Definition<C> = Omit<C, 'registers'>;
type MetricClass = typeof Counter | typeof Gauge | typeof Histogram;

function registered<T>(
  registry: Registry,
  name: string,
  kind: MetricClass,
  labelNames: readonly string[] = [],
): T | undefined {
  const metric = registry.getSingleMetric(name);
  if (!metric) return undefined;
  if (!(metric instanceof kind)) throw new Error(`metric ${name} is already registered as another type`);
  const existingLabels = ((metric as unknown as { labelNames?: string[] }).labelNames ?? []).join(',');
  if (existingLabels !== labelNames.join(','))
    throw new Error(`metric ${name} is already registered with labels [${existingLabels}]`);
  return metric as unknown as T;
}

export function counter<L extends string = string>(
  definition: Definition<CounterConfiguration<L>>,
  registry: Registry = metricsRegistry,
): Counter<L> {
  return (
    registered<Counter<L>>(registry, definition.name, Counter, definition.labelNames) ??
    new Counter<L>({ ...definition, registers: [registry] })
  );
}

export function gauge<L extends string = string>(
  definition: Definition<GaugeConfiguration<L>>,
  registry: Registry = metricsRegistry,
): Gauge<L> {
  return (
    registered<Gauge<L>>(registry, definition.name, Gauge, definition.labelNames) ??
    new Gauge<L>({ ...definition, registers: [registry] })
  );
}

export function histogram<L extends string = string>(
  definition: Definition<HistogramConfiguration<L>>,
  registry: Registry = metricsRegistry,
): Histogram<L> {
  return (
    registered<Histogram<L>>(registry, definition.name, Histogram, definition.labelNames) ??
    new Histogram<L>({ buckets: LATENCY_SECONDS_BUCKETS, ...definition, registers: [registry] })
  );
}

const withProcessMetrics = new WeakSet<Registry>();

/**
 * Node's own metrics on the registry, once: CPU, resident memory, heap, event
 * loop lag, garbage collection, open handles (process_* and nodejs_*).
 */
export function collectProcessMetrics(registry: Registry = metricsRegistry): void {
  if (withProcessMetrics.has(registry)) return;
  withProcessMetrics.add(registry);
  collectDefaultMetrics({ register: registry });
}
