import { randomUUID } from 'node:crypto';
import type { BusEvent, ConsumedEvent } from '@platform/events';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { isNoPartitionForRow } from '@platform/persistence';
import { BODY_BYTES_MAX, serialisePartnerEnvelope } from '../../domain/partner-envelope';
import type { DeliveryMetrics } from '../../metrics/delivery-metrics';
import type { DeliveriesRepository, InsertOutcome, NewDelivery } from '../../persistence/deliveries.repository';
import type { EndpointsRepository } from '../../persistence/endpoints.repository';

/** `no_endpoint`: recorded and held until the partner has an endpoint. */
export type AcceptOutcome = 'created' | 'duplicate' | 'no_endpoint';

/** Per event of a batch, in order: its outcome, or the error that leaves it to the queue (retried, then dead-lettered). */
export type AcceptResult = AcceptOutcome | Error;

/** How far back `webhook set` reaches for held deliveries (older ones need a replay). */
export const HELD_DELIVERY_RETENTION_MS = 72 * 60 * 60_000;

export interface AcceptEventDependencies {
  endpoints: Pick<EndpointsRepository, 'findUrls'>;
  deliveries: Pick<DeliveriesRepository, 'insertMany' | 'openHeld' | 'createFiledWeeks'>;
  metrics: DeliveryMetrics;
  logger: Logger;
}

/**
 * Partner events arrived on the bus: create their deliveries, due now, a whole
 * batch in one statement. The (event, partner) pair is unique, so a
 * redelivered bus message never makes a second delivery.
 *
 * A partner without an endpoint yet still gets the delivery, held as
 * `no_endpoint` with no timer: setting an endpoint opens the held deliveries of
 * the last HELD_DELIVERY_RETENTION_MS, and a replay opens any of them, so an
 * event is sent late rather than never.
 *
 * One bad event never holds back the others: a malformed one fails alone, and
 * when the batch statement fails the events are tried one by one, so only the
 * event that cannot be written goes back to the queue.
 *
 * A week an event is filed in may be missing (partition maintenance stopped
 * longer than the weeks it keeps ahead, a clock jump): the batch then creates
 * it and is tried once more, rather than going back to the queue until the
 * maintenance runs again (docs/retention.md, "Partitions").
 */
export class AcceptEventUseCase {
  constructor(private readonly deps: AcceptEventDependencies) {}

  async execute(events: readonly ConsumedEvent[]): Promise<AcceptResult[]> {
    const results: AcceptResult[] = new Array(events.length);
    const accepted: Array<{ index: number; event: BusEvent; delivery: NewDelivery }> = [];
    for (const [index, event] of events.entries()) {
      const delivery = toNewDelivery(event);
      if (delivery instanceof Error) results[index] = delivery;
      else accepted.push({ index, event, delivery });
    }
    const inserted = await this.insert(accepted.map((item) => item.delivery));
    const held = new Set<string>();
    for (const [position, { index, event }] of accepted.entries()) {
      const outcome = inserted[position] as InsertOutcome | Error;
      if (outcome instanceof Error) {
        results[index] = outcome;
        continue;
      }
      results[index] = outcome === 'pending' ? 'created' : outcome;
      this.deps.metrics.eventAccepted(outcome === 'pending' ? 'created' : outcome, event.createdAt, Date.now());
      if (outcome === 'duplicate')
        this.deps.logger.info('event already has a delivery; duplicate ignored', {
          eventId: event.id,
          eventType: event.type,
        });
      if (outcome === 'no_endpoint') held.add(event.partnerId);
    }
    if (held.size > 0) await this.settleHeld(events, results, held);
    return results;
  }

  /** One statement for the batch; if it fails, each event alone, so only a poisonous one fails. */
  private async insert(deliveries: NewDelivery[]): Promise<Array<InsertOutcome | Error>> {
    if (deliveries.length === 0) return [];
    try {
      return await this.insertCreatingWeeks(deliveries);
    } catch (error) {
      if (deliveries.length === 1) return [error as Error];
      this.deps.logger.warn('batch insert of deliveries failed; inserting one by one', {
        count: deliveries.length,
        error: (error as Error).message,
      });
      const outcomes: Array<InsertOutcome | Error> = [];
      for (const delivery of deliveries) {
        outcomes.push(
          await this.deps.deliveries.insertMany([delivery]).then(
            ([outcome]) => outcome as InsertOutcome,
            (failure: unknown) => failure as Error,
          ),
        );
      }
      return outcomes;
    }
  }

  /**
   * The batch's statement; refused for a week that is missing, the weeks it is filed in created
   * (idempotent: a replica racing here takes turns on the week's lock) and the statement tried once
   * more. The refused statement wrote nothing, and the retry skips what another replica wrote
   * meanwhile as duplicates, so no event is lost or written twice.
   */
  private async insertCreatingWeeks(deliveries: NewDelivery[]): Promise<InsertOutcome[]> {
    try {
      return await this.deps.deliveries.insertMany(deliveries);
    } catch (error) {
      if (!isNoPartitionForRow(error)) throw error;
      const created = await this.deps.deliveries.createFiledWeeks(deliveries);
      this.deps.logger.warn('a week deliveries are filed in was missing: created it, batch tried again', {
        partitions: created,
        count: deliveries.length,
      });
      return this.deps.deliveries.insertMany(deliveries);
    }
  }

  /**
   * An endpoint may have been set between the insert's look-up and its commit,
   * after `webhook set` opened the held rows: look again so none is left behind.
   */
  private async settleHeld(
    events: readonly BusEvent[],
    results: AcceptResult[],
    partnerIds: Set<string>,
  ): Promise<void> {
    const urls = await this.deps.endpoints.findUrls([...partnerIds]);
    const since = new Date(Date.now() - HELD_DELIVERY_RETENTION_MS);
    for (const [partnerId, url] of urls) await this.deps.deliveries.openHeld(partnerId, url, since);
    for (const [index, event] of events.entries()) {
      if (results[index] !== 'no_endpoint') continue;
      if (urls.has(event.partnerId)) results[index] = 'created';
      else
        this.deps.logger.info('no webhook endpoint for partner; delivery held until one is set', {
          eventId: event.id,
          eventType: event.type,
          partnerId: event.partnerId,
        });
    }
  }
}

/** The delivery of a well-formed event, keeping its trace; a malformed one is a producer bug, left to the queue to dead-letter. */
function toNewDelivery(event: ConsumedEvent): NewDelivery | Error {
  if (!isUuid(event.id) || !isUuid(event.partnerId))
    return new Error(`event ${event.id} has a malformed id or partnerId`);
  // The event's creation time keys its deliveries (and picks their weekly partition): the
  // producer's outbox row fixes it, so every redelivery of the event carries the same one.
  const createdAt = new Date(event.createdAt);
  if (Number.isNaN(createdAt.getTime())) return new Error(`event ${event.id} has a malformed createdAt`);
  const body = serialisePartnerEnvelope(event);
  if (Buffer.byteLength(body, 'utf8') > BODY_BYTES_MAX)
    return new Error(`event ${event.id} body exceeds ${BODY_BYTES_MAX} bytes`);
  return {
    deliveryId: randomUUID(),
    eventId: event.id,
    partnerId: event.partnerId,
    eventType: event.type,
    body,
    traceparent: event.traceparent ?? null,
    createdAt,
  };
}
