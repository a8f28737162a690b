import { AsyncImplementation, COALESCED_BATCH_ITEMS_MAX, itemRefusal } from '@platform/grpc';
import { enrichContext } from '@platform/logger';
import { trading } from '@platform/proto';
import type { CreateQuoteUseCase, QuoteOutcome, QuoteView } from '../usecases/create-quote/create-quote.usecase';
import { BatchItemMetrics } from './batch-item-metrics';

function toQuoteMessage(quote: QuoteView): trading.Quote {
  return { ...quote, fee: { ...quote.fee, capKesAmount: quote.fee.capKesAmount ?? undefined } };
}

/** An item's answer, echoing the item's partner and request ids (the gateway checks them before handing it out). */
function toQuotesAnswer(outcome: QuoteOutcome, item: trading.CreateQuotesItem): trading.CreateQuotesAnswer {
  const echo = { partnerId: item.request?.partnerId ?? '', requestId: item.requestId };
  if ('quote' in outcome) return { outcome: { $case: 'quote', quote: toQuoteMessage(outcome.quote) }, ...echo };
  return { outcome: { $case: 'refusal', refusal: itemRefusal(outcome.refusal) }, ...echo };
}

function toCommand(request: trading.CreateQuoteRequest) {
  return {
    partnerId: request.partnerId,
    side: request.side,
    kesAmount: request.kesAmount,
    usdtAmount: request.usdtAmount,
  };
}

/**
 * Translates gRPC messages to commands and views back; no decisions here. A batch
 * names no one request in its metadata: its log context takes its items' request
 * ids, comma-separated (each item's own work logs under its own, see executeMany);
 * each item's outcome is counted (BatchItemMetrics).
 */
export function tradingHandlers(deps: {
  createQuote: CreateQuoteUseCase;
  batchItems?: BatchItemMetrics;
}): AsyncImplementation<typeof trading.TradingService> {
  const batchItems = deps.batchItems ?? new BatchItemMetrics();
  return {
    async createQuote(request) {
      return toQuoteMessage(await deps.createQuote.execute(toCommand(request)));
    },
    async createQuotes(request) {
      enrichContext({ requestId: request.items.map((item) => item.requestId).join(',') });
      const items = request.items.map((item) => ({
        command: toCommand(item.request ?? trading.CreateQuoteRequest.create()),
        requestId: item.requestId,
      }));
      const outcomes = await deps.createQuote.executeMany(items, COALESCED_BATCH_ITEMS_MAX);
      batchItems.count('CreateQuotes', outcomes);
      return { answers: outcomes.map((outcome, index) => toQuotesAnswer(outcome, request.items[index])) };
    },
  };
}
