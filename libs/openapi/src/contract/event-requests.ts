/**
 * The query strings of the events feed and of the partner's webhook
 * deliveries. Each parameter at most once; an unknown or repeated one is
 * refused by name, like every list.
 */
import { UUID_LENGTH, UUID_PATTERN } from '@platform/ids';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from './event-types';
import { PAGE_FIELDS } from './requests';
import { WEBHOOK_DELIVERY_FILTERS } from './statuses';

const FEED_LIMIT_MAX = 100;
/** The feed's page size when `limit` is absent. */
export const FEED_LIMIT_DEFAULT = 50;

const limit = (description: string) =>
  z
    .string()
    .regex(/^[1-9]\d{0,2}$/)
    .pipe(z.coerce.number().int().min(1).max(FEED_LIMIT_MAX))
    .describe(description)
    .optional();

export const eventListQuerySchema = z
  .object({
    after: z
      .string()
      .max(UUID_LENGTH)
      .regex(UUID_PATTERN)
      .describe(
        "The id of the last event you processed (from this feed or a webhook's body); absent: from the oldest event kept. " +
          'An id that is not one of your events answers 400 EVENT_CURSOR_UNKNOWN; one older than the feed keeps, 400 EVENT_CURSOR_EXPIRED',
      )
      .optional(),
    type: z
      .enum(WEBHOOK_EVENT_TYPES)
      .describe('Only events of this type (the cursor may be an event of any type)')
      .optional(),
    limit: limit(`Page size, 1-${FEED_LIMIT_MAX}, default ${FEED_LIMIT_DEFAULT}`),
  })
  .strict();

export const webhookDeliveryListQuerySchema = z
  .object({
    status: z.enum(WEBHOOK_DELIVERY_FILTERS).describe('One status').optional(),
    ...PAGE_FIELDS,
  })
  .strict();
