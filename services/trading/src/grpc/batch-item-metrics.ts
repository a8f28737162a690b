/**
 * The outcome of each item of a batch RPC (GetOrders, CreateQuotes), by code. The
 * gRPC server counts a batch as one call with one status (OK when its items were
 * answered, whatever each answer was); this counts what each item got, so a
 * partner's ORDER_NOT_FOUND, VALIDATION_FAILED or RATE_UNAVAILABLE stays visible
 * as it was when each was its own call:
 * - trading_batch_item_outcomes_total{method, code}: code is OK for an answered
 *   item, else the refusal's code (INTERNAL_ERROR for an item that failed alone).
 */
import type { AppError } from '@platform/errors';
import { counter, metricsRegistry, Registry } from '@platform/metrics';

export type BatchMethod = 'GetOrders' | 'CreateQuotes';

export class BatchItemMetrics {
  private readonly outcomes;

  constructor(registry: Registry = metricsRegistry) {
    this.outcomes = counter(
      {
        name: 'trading_batch_item_outcomes_total',
        help: 'Items of the batch RPCs answered, by method and outcome code (OK or the refusal code).',
        labelNames: ['method', 'code'] as const,
      },
      registry,
    );
  }

  /** Counts each item's outcome: OK when answered, else its refusal's code. */
  count(method: BatchMethod, outcomes: readonly ({ refusal: AppError } | object)[]): void {
    for (const outcome of outcomes)
      this.outcomes.inc({ method, code: 'refusal' in outcome ? outcome.refusal.code : 'OK' });
  }
}
