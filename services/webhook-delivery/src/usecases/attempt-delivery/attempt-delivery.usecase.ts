import { randomUUID } from 'node:crypto';
import type { SealingKeyRing } from '@platform/crypto';
import { Logger, runWithContext } from '@platform/logger';
import { contextFromTraceparent, currentTraceparent, inSpan, SpanKind } from '@platform/tracing';
import type { WebhookSender } from '../../adapters/https-webhook-sender';
import { AttemptResult, errorClassOf, nextDeliveryState, NextDeliveryState } from '../../domain/attempt-outcome';
import { signingSecrets } from '../../domain/endpoint-secrets';
import { cryptoRandomUnit, RandomUnit } from '../../domain/retry-schedule';
import { webhookHeaders } from '../../domain/webhook-request';
import type { ClaimedDelivery, FailureRun } from '../../persistence/deliveries.repository';
import type { DeliveryMetrics } from '../../metrics/delivery-metrics';
import type { AttemptRecorder } from './attempt-recorder';

/**
 * Failed attempts in a row, across the partner's deliveries, at which the endpoint
 * is reported as failing consistently; reported again at every further multiple,
 * so a long outage keeps alerting at a bounded rate.
 */
export const ENDPOINT_FAILING_ALERT_THRESHOLD = 10;

export interface AttemptDeliveryDependencies {
  recorder: AttemptRecorder;
  sender: WebhookSender;
  /** Opens the endpoint's sealed secrets (any key of the ring). */
  sealingKeys: SealingKeyRing;
  timeScale: number;
  logger: Logger;
  metrics: DeliveryMetrics;
  random?: RandomUnit;
}

/**
 * One attempt of a delivery this replica holds the lease on: sign the stored
 * body, POST it, record the attempt and move the delivery on (delivered, retry
 * later, or dead after the last attempt).
 *
 * The attempt always goes to the endpoint's CURRENT url with its CURRENT
 * secrets (as read by the claim, moments before), not those of when the event
 * arrived: a partner who fixes a broken URL or rotates a leaked secret expects
 * the retries to follow.
 *
 * Each attempt runs in a span continuing the trace the event arrived with (the
 * request that caused it), so its log lines carry that trace id, and the
 * request to the endpoint carries the attempt's W3C `traceparent`.
 */
export class AttemptDeliveryUseCase {
  private readonly random: RandomUnit;

  constructor(private readonly deps: AttemptDeliveryDependencies) {
    this.random = deps.random ?? cryptoRandomUnit;
  }

  /** Resolves to the new state, or null when aborted (shutdown) and left to its lease. */
  async execute(claimed: ClaimedDelivery, signal?: AbortSignal): Promise<NextDeliveryState | null> {
    const span = { kind: SpanKind.CLIENT, parent: contextFromTraceparent(claimed.traceparent) };
    return inSpan(`webhook ${claimed.eventType}`, span, () =>
      runWithContext({ partnerId: claimed.partnerId }, async () => {
        const attemptNumber = claimed.attemptCount + 1;
        const startedAt = new Date();
        const result = await this.attempt(claimed, signal);
        if (signal?.aborted) {
          this.deps.logger.info('attempt abandoned at shutdown; the lease will expire and another replica retries', {
            deliveryId: claimed.deliveryId,
          });
          return null;
        }
        const next = nextDeliveryState({
          attemptNumber,
          result,
          nowMs: Date.now(),
          timeScale: this.deps.timeScale,
          random: this.random,
        });
        const { leaseHeld, failureRun } = await this.deps.recorder.record({
          claimed,
          attempt: {
            attemptId: randomUUID(),
            attemptNumber,
            startedAt,
            latencyMs: result.latencyMs,
            statusCode: result.kind === 'response' ? result.statusCode : null,
            errorClass: errorClassOf(result),
            responseExcerpt: result.kind === 'response' ? result.responseExcerpt : '',
          },
          next,
        });
        this.logOutcome(claimed, attemptNumber, result, next, leaseHeld);
        if (leaseHeld) this.observe(claimed, result, next, failureRun);
        return next;
      }),
    );
  }

  private async attempt(claimed: ClaimedDelivery, signal?: AbortSignal): Promise<AttemptResult> {
    const { endpoint } = claimed;
    if (endpoint === null)
      return { kind: 'failure', errorClass: 'no_endpoint', detail: 'the partner has no endpoint', latencyMs: 0 };
    const nowMs = Date.now();
    const sealed = signingSecrets(
      {
        current: endpoint.secretSealed,
        previous: endpoint.previousSecretSealed,
        previousExpiresAt: endpoint.previousSecretExpiresAt,
      },
      nowMs,
    );
    const secrets = sealed.map((value) => this.deps.sealingKeys.open(value));
    const headers = webhookHeaders({
      deliveryId: claimed.deliveryId,
      eventType: claimed.eventType,
      body: claimed.body,
      secrets,
      nowMs,
      traceparent: currentTraceparent(),
    });
    return this.deps.sender.send({ url: endpoint.url, headers, body: claimed.body, signal });
  }

  /** Metrics and endpoint health, once the attempt is recorded as this replica's. */
  private observe(
    claimed: ClaimedDelivery,
    result: AttemptResult,
    next: NextDeliveryState,
    failureRun: FailureRun | null,
  ): void {
    const errorClass = errorClassOf(result);
    this.deps.metrics.attemptFinished(next.status === 'pending' ? 'retry' : next.status, errorClass, result.latencyMs);
    if (failureRun === null) return;
    for (const consecutiveFailures of alertPoints(failureRun)) {
      this.deps.metrics.endpointFailingAlert();
      this.deps.logger.error('webhook endpoint failing consistently', {
        alert: 'webhook_endpoint_failing',
        partnerId: claimed.partnerId,
        consecutiveFailures,
        lastErrorClass: errorClass,
      });
    }
  }

  private logOutcome(
    claimed: ClaimedDelivery,
    attemptNumber: number,
    result: AttemptResult,
    next: NextDeliveryState,
    leaseHeld: boolean,
  ): void {
    const fields = {
      deliveryId: claimed.deliveryId,
      eventId: claimed.eventId,
      eventType: claimed.eventType,
      attemptNumber,
      statusCode: result.kind === 'response' ? result.statusCode : undefined,
      errorClass: errorClassOf(result) ?? undefined,
      detail: result.kind === 'failure' ? result.detail : undefined,
      latencyMs: result.latencyMs,
      outcome: next.status,
      retryInMs: next.status === 'pending' ? next.delayMs : undefined,
    };
    if (!leaseHeld)
      this.deps.logger.warn(
        'webhook attempt finished after its lease was lost; another replica owns the delivery',
        fields,
      );
    else if (next.status === 'delivered') this.deps.logger.info('webhook delivered', fields);
    else if (next.status === 'pending') this.deps.logger.warn('webhook attempt failed; will retry', fields);
    else
      this.deps.logger.error('webhook delivery dead after its last attempt', {
        alert: 'webhook_dead_lettered',
        ...fields,
      });
  }
}

/**
 * The multiples of ENDPOINT_FAILING_ALERT_THRESHOLD an endpoint's run of
 * failures passed through in one recorded batch (usually none, at most a few).
 */
export function alertPoints(run: FailureRun): number[] {
  const points: number[] = [];
  const first = Math.max(1, Math.ceil(run.from / ENDPOINT_FAILING_ALERT_THRESHOLD)) * ENDPOINT_FAILING_ALERT_THRESHOLD;
  for (let value = first; value <= run.consecutiveFailures; value += ENDPOINT_FAILING_ALERT_THRESHOLD)
    points.push(value);
  return points;
}
