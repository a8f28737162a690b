/**
 * The events feed and the partner's own webhook deliveries, served by
 * webhook-delivery. The feed answers each event as the exact bytes its webhook
 * delivers (webhook-delivery stores the serialised envelope once), so a
 * partner's signature-free dedupe and parsing work the same on both paths.
 * A page crosses from webhook-delivery as those bytes already joined into the
 * JSON array answered here, so the gateway never parses or re-encodes one.
 */
import type { webhookDeliveryPartnerFeed } from '@platform/proto';
import type { WebhookDeliveryApi } from '../dependencies';
import { answerPage, answerPageJson } from '../paging';
import type { OperationHandler } from './operation';

/** The delivery as partners see it. */
export function presentWebhookDelivery(delivery: webhookDeliveryPartnerFeed.PartnerDelivery) {
  return {
    id: delivery.deliveryId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attemptCount,
    lastStatusCode: delivery.lastStatusCode ?? null,
    lastErrorClass: delivery.lastErrorClass ?? null,
    nextAttemptAt: delivery.nextAttemptAt ?? null,
    createdAt: delivery.createdAt,
    deliveredAt: delivery.deliveredAt ?? null,
  };
}

/**
 * The page's body: webhook-delivery's `page_json` as it came (the array built
 * once, by its database), or, from a webhook-delivery of the release before it
 * that answers one message per event, the same array joined here.
 */
export function eventsPageBody(page: webhookDeliveryPartnerFeed.ListEventsResponse): Buffer {
  if (page.pageJson.byteLength > 0) return page.pageJson;
  return Buffer.from(`[${page.events.map((event) => event.envelopeJson).join(',')}]`, 'utf8');
}

/** GET /v1/events → 200 a page of events, oldest first; X-Next-Cursor is the `after` of the next page. */
export function listEventsHandler(deps: {
  webhookDelivery: Pick<WebhookDeliveryApi, 'listEvents'>;
}): OperationHandler<'listEvents'> {
  return async ({ partnerId, query }, res) => {
    const page = await deps.webhookDelivery.listEvents({
      partnerId,
      afterEventId: query.after ?? '',
      eventType: query.type ?? '',
      limit: query.limit ?? 0,
      asJsonArray: true,
    });
    answerPageJson(res, eventsPageBody(page), page.nextAfterEventId);
  };
}

/** GET /v1/webhook-deliveries → 200 a page of the partner's deliveries, newest first. */
export function listWebhookDeliveriesHandler(deps: {
  webhookDelivery: Pick<WebhookDeliveryApi, 'listPartnerDeliveries'>;
}): OperationHandler<'listWebhookDeliveries'> {
  return async ({ partnerId, query }, res) => {
    const page = await deps.webhookDelivery.listPartnerDeliveries({
      partnerId,
      status: query.status ?? '',
      limit: query.limit ?? 0,
      cursor: query.cursor ?? '',
    });
    answerPage(res, page.deliveries.map(presentWebhookDelivery), page.nextCursor);
  };
}

/** POST /v1/webhook-deliveries/{id}/retry, no body → 200 the delivery after the retry. */
export function retryWebhookDeliveryHandler(deps: {
  webhookDelivery: Pick<WebhookDeliveryApi, 'retryDelivery'>;
}): OperationHandler<'retryWebhookDelivery'> {
  return async ({ partnerId, params }, res) => {
    res
      .status(200)
      .json(presentWebhookDelivery(await deps.webhookDelivery.retryDelivery({ partnerId, deliveryId: params.id })));
  };
}
