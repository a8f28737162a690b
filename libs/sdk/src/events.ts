/**
 * The events feed and the partner's webhook deliveries. `catchUp` pages the
 * feed from the last event you processed until it is caught up: the feed never
 * skips or repeats an event, so store each event's id once it is processed and
 * pass it as `after` next time (after downtime, or on a timer beside webhooks).
 */
import type { SendOptions, WithMeta } from './client';
import type * as T from './types';

type Call = <R>(method: string, path: string, options?: SendOptions) => Promise<WithMeta<R>>;

const NEXT_CURSOR_HEADER = 'x-next-cursor';
/** Pages one catch-up reads at most, so a loop over a feed that keeps growing still ends; call again to go on. */
export const CATCH_UP_PAGES_MAX = 1_000;

export interface CatchUpOptions {
  /** The id of the last event you processed; absent: from the oldest event the feed keeps. */
  after?: string;
  type?: T.EventQuery['type'];
  /** Page size, 1-100. */
  limit?: number;
}

export function eventsApi(call: Call) {
  const list = (query: T.EventQuery = {}) => call<T.Event[]>('GET', '/v1/events', { query: { ...query } });
  return {
    /** One page, oldest first; `$response.headers` carries X-Next-Cursor (the next page's `after`) while more follow. */
    list,
    /** Every event after `after`, oldest first, page by page until the feed is caught up (at most CATCH_UP_PAGES_MAX pages). */
    async *catchUp(options: CatchUpOptions = {}): AsyncGenerator<T.Event, void, undefined> {
      let after = options.after;
      for (let page = 0; page < CATCH_UP_PAGES_MAX; page += 1) {
        const events = await list({
          ...(after ? { after } : {}),
          ...(options.type ? { type: options.type } : {}),
          ...(options.limit ? { limit: options.limit } : {}),
        });
        for (const event of events) yield event;
        const next = events.$response.headers.get(NEXT_CURSOR_HEADER);
        if (!next) return;
        after = next;
      }
    },
  };
}

export function webhookDeliveriesApi(call: Call) {
  return {
    /** Newest first; X-Next-Cursor in `$response.headers` while more pages follow. */
    list: (query: T.WebhookDeliveryQuery = {}) =>
      call<T.WebhookDelivery[]>('GET', '/v1/webhook-deliveries', { query: { ...query } }),
    /** A fresh round of attempts for a dead or failing delivery, same delivery id; safe to repeat. */
    retry: (deliveryId: string) =>
      call<T.WebhookDelivery>('POST', `/v1/webhook-deliveries/${encodeURIComponent(deliveryId)}/retry`, {
        retrySafety: 'idempotent',
      }),
  };
}
