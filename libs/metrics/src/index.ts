export {
  collectProcessMetrics,
  counter,
  gauge,
  histogram,
  LATENCY_SECONDS_BUCKETS,
  metricsRegistry,
  MS_PER_SECOND,
  Registry,
} from './registry';
export type { Counter, Gauge, Histogram } from './registry';
export { METRICS_PATH, startMetricsServer } from './metrics-server';
export type { MetricsServer, MetricsServerOptions } from './metrics-server';
export { PROBE_TIMEOUT_MS, ScrapeProbes } from './scrape-probes';
export type { Measure, ProbeFamily, Reading } from './scrape-probes';
export { WorkerMetrics } from './worker-metrics';
export type { DueBacklog } from './worker-metrics';
export { observeBreaker } from './breaker-metrics';
export type { BreakerState, ObservableBreaker } from './breaker-metrics';
export { observeDatabasePool } from './database-pool';
export type { PooledDataSource } from './database-pool';
