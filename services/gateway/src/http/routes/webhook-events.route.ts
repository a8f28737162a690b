/**
 * The events feed and the partner's own webhook deliveries, served by
 * webhook-delivery. The feed answers each event as the exact bytes its webhook
 * delivers (webhook-delivery stores the serialised envelope once), so a
 * partner's signature-free dedupe and parsing work the same on both paths.
 */
import type { webhookDeliveryPartnerFeed } from '@platform/proto';
import type { WebhookDeliveryApi } from '../dependencies';
import { JSON_CONTENT_TYPE } from '../json-response';
import { answerPage, NEXT_CURSOR_HEADER } from '../paging';
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
    });
    if (page.nextAfterEventId) res.setHeader(NEXT_CURSOR_HEADER, page.nextAfterEventId);
    const text = `[${page.events.map((event) => event.envelopeJson).join(',')}]`;
    res.status(200).setHeader('Content-Type', JSON_CONTENT_TYPE);
    res.setHeader('Content-Length', Buffer.byteLength(text, 'utf8'));
    res.end(text, 'utf8');
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
