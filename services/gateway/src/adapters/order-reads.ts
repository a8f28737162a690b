/**
 * The routes' GetOrder reads, sent to trading in batches: the reads made in one
 * event-loop pass (concurrent requests whose credential and admission answered
 * together) leave as one GetOrders call, one HTTP/2 stream on each side instead
 * of one per read (coalesced-call.ts, @platform/grpc). A lone read leaves at the
 * end of its pass, with no timer. Each read is answered as GetOrder would answer
 * it: its partner's order, or its own refusal (another partner's order is
 * ORDER_NOT_FOUND, checked by trading per item); a batch that fails as a whole
 * (trading unreachable, deadline, open breaker) fails each read with the
 * SERVICE_UNAVAILABLE a single call would have given it.
 *
 * The batch call is made outside any one request's context: its metadata names
 * no request and no partner (the batch spans several); each item carries its
 * own partner id and request id, and trading logs the batch under the items'
 * request ids. Its client span is the child of the span of the request whose
 * read opened the batch (the trace context active when it was scheduled); the
 * other requests' reads are found by their request ids.
 */
import { AppError } from '@platform/errors';
import { coalescedCall, CoalescingSettings, fromItemRefusal, ItemOutcome } from '@platform/grpc';
import { currentContext, RequestContext, runWithContext } from '@platform/logger';
import { trading } from '@platform/proto';
import type { TradingClient } from './upstreams';

/** The batch call's own context: no request, partner, key or operator of one item. */
const BATCH_CONTEXT: RequestContext = {
  requestId: undefined,
  partnerId: undefined,
  credentialKey: undefined,
  operator: undefined,
};

function outcomeOf(answer: trading.GetOrdersAnswer): ItemOutcome<trading.Order> {
  switch (answer.outcome?.$case) {
    case 'order':
      return { answer: answer.outcome.order };
    case 'refusal':
      return { error: fromItemRefusal(answer.outcome.refusal) };
    default:
      return { error: new AppError('INTERNAL_ERROR') };
  }
}

/** GetOrder, made through trading's GetOrders in batches of the reads made together. */
export function coalescedOrderReads(
  client: Pick<TradingClient, 'getOrders'>,
  settings: CoalescingSettings & { deadlineMs: number },
): TradingClient['getOrder'] {
  const read = coalescedCall<trading.GetOrdersItem, trading.Order>({
    method: trading.TradingOrdersService.getOrders.path,
    batchItemsMax: settings.batchItemsMax,
    windowMs: settings.windowMs,
    deadlineMs: settings.deadlineMs,
    send: (items, deadlineMs) =>
      runWithContext(BATCH_CONTEXT, () => client.getOrders({ items: [...items] }, { deadlineMs })).then((response) =>
        response.answers.map(outcomeOf),
      ),
  });
  return (request, options) =>
    read(
      { partnerId: request.partnerId, orderId: request.orderId, requestId: currentContext().requestId ?? '' },
      options,
    );
}
