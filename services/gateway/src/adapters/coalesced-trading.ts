/**
 * The routes' GetOrder reads and CreateQuote calls, sent to trading in batches:
 * the calls of one kind made in one event-loop pass (concurrent requests whose
 * credential and admission answered together) leave as one GetOrders or
 * CreateQuotes call, one HTTP/2 stream on each side instead of one per call
 * (coalesced-call.ts, @platform/grpc). A lone call leaves at the end of its
 * pass, with no timer. Each call is answered as the single RPC would answer
 * it: its own order or quote, or its own refusal (another partner's order is
 * ORDER_NOT_FOUND, checked by trading per item; one quote's VALIDATION_FAILED
 * leaves its neighbours priced); a batch that fails as a whole (trading
 * unreachable, deadline, open breaker) fails each call with the
 * SERVICE_UNAVAILABLE a single call would have given it.
 *
 * A batch is sent outside any one request's context: its metadata names no
 * request and no partner (the batch spans several); each item carries its own
 * partner id and request id, and trading logs the batch under the items'
 * request ids. Its spans are in a trace of its own, linked to each request's
 * span (coalesced-call.ts), never in one partner's trace. An answer is handed
 * out only if it names its item (the order's id; a quote's echoed partner and
 * request ids): one out of place fails its item as INTERNAL_ERROR, logged.
 */
import { AppError } from '@platform/errors';
import { coalescedCall, CoalescingSettings, fromItemRefusal, ItemOutcome } from '@platform/grpc';
import { currentContext, Logger, RequestContext, runWithContext } from '@platform/logger';
import { trading } from '@platform/proto';
import type { TradingClient } from './upstreams';

export type CoalescedTradingSettings = CoalescingSettings & { deadlineMs: number };

type ErrorLogger = Pick<Logger, 'error'>;

/** A batch's own context: no request, partner, key or operator of one item. */
const BATCH_CONTEXT: RequestContext = {
  requestId: undefined,
  partnerId: undefined,
  credentialKey: undefined,
  operator: undefined,
};

/** An item answered without its value: its refusal rebuilt, or, answered with nothing, a bug (INTERNAL_ERROR). */
function refusalOf(outcome: { $case: 'refusal'; refusal: string } | undefined): ItemOutcome<never> {
  return { error: outcome ? fromItemRefusal(outcome.refusal) : new AppError('INTERNAL_ERROR') };
}

/** A coalescer whose batch leaves outside the requests' context. */
function batched<I, V>(
  path: string,
  settings: CoalescedTradingSettings,
  send: (items: I[], deadlineMs: number) => Promise<ItemOutcome<V>[]>,
) {
  return coalescedCall<I, V>({
    method: path,
    batchItemsMax: settings.batchItemsMax,
    windowMs: settings.windowMs,
    deadlineMs: settings.deadlineMs,
    send: (items, deadlineMs) => runWithContext(BATCH_CONTEXT, () => send([...items], deadlineMs)),
  });
}

const requestIdNow = () => currentContext().requestId ?? '';

/**
 * An answer that names another item than the one at its place (trading answered
 * out of order): never handed out, so no partner gets another's order or quote;
 * that item fails as INTERNAL_ERROR, loudly.
 */
function misplaced(logger: ErrorLogger, method: string, requestId: string, mismatch: object): ItemOutcome<never> {
  logger.error('batch answer names another item; not handed out', { method, itemRequestId: requestId, ...mismatch });
  return { error: new AppError('INTERNAL_ERROR') };
}

/** GetOrder, made through trading's GetOrders in batches of the reads made together. */
export function coalescedOrderReads(
  client: Pick<TradingClient, 'getOrders'>,
  settings: CoalescedTradingSettings,
  logger: ErrorLogger,
): TradingClient['getOrder'] {
  const method = trading.TradingOrdersService.getOrders.path;
  const read = batched<trading.GetOrdersItem, trading.Order>(method, settings, async (items, deadlineMs) => {
    const response = await client.getOrders({ items }, { deadlineMs });
    return response.answers.map(({ outcome }, index) => {
      if (outcome?.$case !== 'order') return refusalOf(outcome);
      const item = items[index];
      if (outcome.order.orderId !== item?.orderId)
        return misplaced(logger, method, item?.requestId ?? '', {
          orderId: item?.orderId,
          answeredOrderId: outcome.order.orderId,
        });
      return { answer: outcome.order };
    });
  });
  return (request, options) =>
    read({ partnerId: request.partnerId, orderId: request.orderId, requestId: requestIdNow() }, options);
}

/** CreateQuote, made through trading's CreateQuotes in batches of the quotes asked together. */
export function coalescedQuotes(
  client: Pick<TradingClient, 'createQuotes'>,
  settings: CoalescedTradingSettings,
  logger: ErrorLogger,
): TradingClient['createQuote'] {
  const method = trading.TradingService.createQuotes.path;
  const create = batched<trading.CreateQuotesItem, trading.Quote>(method, settings, async (items, deadlineMs) => {
    const response = await client.createQuotes({ items }, { deadlineMs });
    return response.answers.map(({ outcome, partnerId, requestId }, index) => {
      const item = items[index];
      const itemPartnerId = item?.request?.partnerId ?? '';
      if (partnerId !== itemPartnerId || requestId !== item?.requestId)
        return misplaced(logger, method, item?.requestId ?? '', {
          partnerId: itemPartnerId,
          answeredPartnerId: partnerId,
          answeredRequestId: requestId,
        });
      return outcome?.$case === 'quote' ? { answer: outcome.quote } : refusalOf(outcome);
    });
  });
  return (request, options) => create({ request, requestId: requestIdNow() }, options);
}
