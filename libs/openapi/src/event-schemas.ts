/**
 * Response schemas of the events feed and of the partner's webhook deliveries.
 * An event in the feed is exactly the envelope its webhook delivers.
 */
import { WEBHOOK_DELIVERY_STATUSES } from './contract/statuses';
import { WEBHOOK_EVENT_TYPES } from './contract/event-types';
import { nullable, ref, word } from './schemas';

type Schema = Record<string, unknown>;

const ATTEMPTS_MAX = 7;
const HTTP_STATUS_MAX = 599;

export function eventSchemas(): Record<string, Schema> {
  return {
    Event: {
      type: 'object',
      required: ['id', 'type', 'createdAt', 'data'],
      description:
        'One event, exactly the body its webhook delivers (`data` as documented for its type under Webhooks)',
      properties: {
        id: ref('Uuid'),
        type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
        createdAt: ref('Timestamp'),
        data: { type: 'object', description: "The event type's data" },
      },
    },
    WebhookDelivery: {
      type: 'object',
      required: [
        'id',
        'eventId',
        'eventType',
        'status',
        'attempts',
        'lastStatusCode',
        'lastErrorClass',
        'nextAttemptAt',
        'createdAt',
        'deliveredAt',
      ],
      properties: {
        id: {
          ...ref('Uuid'),
          description: 'The delivery id: the X-Service-Delivery header, the same on every attempt and retry',
        },
        eventId: ref('Uuid'),
        eventType: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
        status: {
          type: 'string',
          enum: [...WEBHOOK_DELIVERY_STATUSES],
          description:
            '`pending` (no attempt of this round failed yet), `failing` (attempts failed, more are scheduled), `delivered`, `dead` ' +
            '(all 7 attempts failed), `held` (the event came before your endpoint was set)',
        },
        attempts: {
          type: 'integer',
          format: 'int32',
          minimum: 0,
          maximum: ATTEMPTS_MAX,
          description: 'Attempts in the current round (a retry starts a new round)',
        },
        lastStatusCode: nullable({ type: 'integer', format: 'int32', minimum: 100, maximum: HTTP_STATUS_MAX }),
        lastErrorClass: nullable(
          word(
            '`http_status`, `redirect`, `timeout`, `connection`, `tls`, `dns`, `protocol`, `ssrf_refused` or `invalid_url`',
          ),
        ),
        nextAttemptAt: nullable(ref('Timestamp')),
        createdAt: ref('Timestamp'),
        deliveredAt: nullable(ref('Timestamp')),
      },
    },
  };
}
