// Proves the CreateQuotes handler's translation: each item's request goes to the
// use case as CreateQuote's would (an item without a request as an empty one, which
// the use case refuses), the batch bound passed on, one answer per outcome in order
// (a quote as CreateQuote answers it, a refusal as the AppError payload a single
// call carries, rebuilt whole, each echoing its item's partner and request ids),
// the batch's log context naming every item's request id, and each item's outcome
// counted by code in trading_batch_item_outcomes_total.
import { AppError } from '@platform/errors';
import { COALESCED_BATCH_ITEMS_MAX, fromItemRefusal } from '@platform/grpc';
import { currentContext, runWithContext } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { CreateQuoteUseCase, QuoteItem, QuoteView } from '../usecases/create-quote/create-quote.usecase';
import { BatchItemMetrics } from './batch-item-metrics';
import { tradingHandlers } from './trading.handlers';

const PARTNER_ID = '6a1f0c55-2b7e-4c1e-8a37-0b1c2d3e4f50';
const QUOTE: QuoteView = {
  quoteId: '0b6f3a3e-5f8e-4a39-9d0c-6f1f3d2b9a10',
  side: 'buy',
  kesAmount: '1000.00',
  usdtAmount: '7.634310',
  rate: '130.9876',
  kesTotalAmount: '1020.00',
  fee: { kesAmount: '20.00', percentBps: 100, flatKesAmount: '10.00', capKesAmount: null },
  expiresAt: '2026-11-27T12:00:30.000Z',
  settlementEstimateSeconds: 60,
};

describe('tradingHandlers createQuotes', () => {
  it("passes each item on, answers in order echoing each item's partner and request ids, and logs under every request id", async () => {
    const seen: { items: QuoteItem[]; itemsMax: number; requestId?: string }[] = [];
    const createQuote = {
      executeMany: async (items: QuoteItem[], itemsMax: number) => {
        seen.push({ items, itemsMax, requestId: currentContext().requestId });
        return [{ quote: QUOTE }, { refusal: new AppError('VALIDATION_FAILED', { fields: ['kesAmount'] }) }];
      },
    } as unknown as CreateQuoteUseCase;
    const registry = new Registry();
    const answer = await runWithContext({}, () =>
      tradingHandlers({ createQuote, batchItems: new BatchItemMetrics(registry) }).createQuotes({
        items: [
          {
            request: { partnerId: PARTNER_ID, side: 'buy', kesAmount: '1000.00', usdtAmount: undefined },
            requestId: 'req-a',
          },
          { request: undefined, requestId: 'req-b' },
        ],
      }),
    );
    expect(seen).toEqual([
      {
        items: [
          {
            command: { partnerId: PARTNER_ID, side: 'buy', kesAmount: '1000.00', usdtAmount: undefined },
            requestId: 'req-a',
          },
          { command: { partnerId: '', side: '', kesAmount: undefined, usdtAmount: undefined }, requestId: 'req-b' },
        ],
        itemsMax: COALESCED_BATCH_ITEMS_MAX,
        requestId: 'req-a,req-b',
      },
    ]);
    expect(answer.answers.map(({ partnerId, requestId }) => ({ partnerId, requestId }))).toEqual([
      { partnerId: PARTNER_ID, requestId: 'req-a' },
      { partnerId: '', requestId: 'req-b' },
    ]);
    const [priced, refused] = answer.answers.map((entry) => entry.outcome);
    expect(priced).toEqual({ $case: 'quote', quote: { ...QUOTE, fee: { ...QUOTE.fee, capKesAmount: undefined } } });
    expect(refused?.$case).toBe('refusal');
    expect(fromItemRefusal((refused as { refusal: string }).refusal)).toMatchObject({
      code: 'VALIDATION_FAILED',
      fields: ['kesAmount'],
    });
    const counted = await registry.getSingleMetric('trading_batch_item_outcomes_total')?.get();
    expect(counted?.values.map(({ labels, value }) => ({ ...labels, value }))).toEqual([
      { method: 'CreateQuotes', code: 'OK', value: 1 },
      { method: 'CreateQuotes', code: 'VALIDATION_FAILED', value: 1 },
    ]);
  });
});
