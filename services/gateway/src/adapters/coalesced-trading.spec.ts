// Proves the gateway's coalesced order reads against a recording GetOrders (no
// network): reads made together leave as one call whose items carry each
// request's partner and request id, made outside any one request's context;
// each read gets its own order or its own refusal rebuilt whole (a foreign
// order's ORDER_NOT_FOUND beside an own order's answer); a failed call fails
// every read with the same error; the call's deadline is the standard one.
// Quotes the same way: one CreateQuotes call, one item's VALIDATION_FAILED
// (its fields kept) beside its neighbour's quote.
import { AppError } from '@platform/errors';
import { itemRefusal } from '@platform/grpc';
import { currentContext, RequestContext, runWithContext } from '@platform/logger';
import type { trading } from '@platform/proto';
import { coalescedOrderReads, coalescedQuotes } from './coalesced-trading';

const PARTNER_A = '6a1f0c55-2b7e-4c1e-8a37-0b1c2d3e4f50';
const PARTNER_B = 'c5d0e4a2-1111-4a2b-9c3d-000000000001';
const ORDER_A = '0b6f3a3e-5f8e-4a39-9d0c-6f1f3d2b9a10';
const ORDER_B = '1c7a4b4f-6a9f-4b4a-8e1d-7a2a4e3cab21';

const logger = { error: jest.fn() };
beforeEach(() => logger.error.mockClear());

interface Call {
  items: trading.GetOrdersItem[];
  deadlineMs: number | undefined;
  context: RequestContext;
}

function reads(answer: (items: trading.GetOrdersItem[]) => Promise<trading.GetOrdersResponse>) {
  const calls: Call[] = [];
  const getOrder = coalescedOrderReads(
    {
      getOrders: async (request, options) => {
        calls.push({ items: request.items, deadlineMs: options?.deadlineMs, context: { ...currentContext() } });
        return answer(request.items);
      },
    },
    { batchItemsMax: 64, windowMs: 0, deadlineMs: 5_000 },
    logger,
  );
  /** A read as a route makes it, inside its request's context. */
  const readAs = (requestId: string, partnerId: string, orderId: string) =>
    runWithContext({ requestId, partnerId, credentialKey: `pk_${partnerId}` }, () => getOrder({ partnerId, orderId }));
  return { readAs, calls };
}

/** Trading's rule, written out: the order answers only its own partner. */
async function ownOrdersOnly(items: trading.GetOrdersItem[]): Promise<trading.GetOrdersResponse> {
  return {
    answers: items.map((item) =>
      item.orderId === ORDER_A && item.partnerId === PARTNER_A
        ? { outcome: { $case: 'order', order: { orderId: ORDER_A } as trading.Order } }
        : { outcome: { $case: 'refusal', refusal: itemRefusal(new AppError('ORDER_NOT_FOUND')) } },
    ),
  };
}

describe('coalescedOrderReads', () => {
  it("sends reads made together as one call, each answered as its own: the own order, the other partner's 404", async () => {
    const { readAs, calls } = reads(ownOrdersOnly);
    const [own, foreign] = await Promise.allSettled([
      readAs('req-a', PARTNER_A, ORDER_A),
      readAs('req-b', PARTNER_B, ORDER_A),
    ]);
    expect(own).toEqual({ status: 'fulfilled', value: { orderId: ORDER_A } });
    expect(foreign.status).toBe('rejected');
    const refusal = (foreign as PromiseRejectedResult).reason;
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'ORDER_NOT_FOUND' });
    expect(calls).toHaveLength(1);
    expect(calls[0].items).toEqual([
      { partnerId: PARTNER_A, orderId: ORDER_A, requestId: 'req-a' },
      { partnerId: PARTNER_B, orderId: ORDER_A, requestId: 'req-b' },
    ]);
  });

  it("makes the call outside any one request's context, with the standard deadline", async () => {
    const { readAs, calls } = reads(ownOrdersOnly);
    await readAs('req-a', PARTNER_A, ORDER_A);
    expect(calls[0].context).toMatchObject({
      requestId: undefined,
      partnerId: undefined,
      credentialKey: undefined,
    });
    expect(calls[0].deadlineMs).toBeGreaterThan(4_900);
    expect(calls[0].deadlineMs).toBeLessThanOrEqual(5_000);
  });

  it('fails every read of a failed call with the one error a single call would have given', async () => {
    const unavailable = new AppError('SERVICE_UNAVAILABLE');
    const { readAs } = reads(async () => {
      throw unavailable;
    });
    await expect(
      Promise.allSettled([readAs('req-a', PARTNER_A, ORDER_A), readAs('req-b', PARTNER_B, ORDER_A)]),
    ).resolves.toEqual([
      { status: 'rejected', reason: unavailable },
      { status: 'rejected', reason: unavailable },
    ]);
  });

  it("never hands out an order answered at another read's place: each such read fails INTERNAL_ERROR, logged", async () => {
    const order = (orderId: string) => ({ outcome: { $case: 'order' as const, order: { orderId } as trading.Order } });
    const { readAs } = reads(async () => ({ answers: [order(ORDER_B), order(ORDER_A)] }));
    const outcomes = await Promise.allSettled([
      readAs('req-a', PARTNER_A, ORDER_A),
      readAs('req-b', PARTNER_B, ORDER_B),
    ]);
    expect(outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason?.code)).toEqual([
      'INTERNAL_ERROR',
      'INTERNAL_ERROR',
    ]);
    expect(logger.error).toHaveBeenCalledTimes(2);
    expect(logger.error.mock.calls[0][1]).toMatchObject({
      itemRequestId: 'req-a',
      orderId: ORDER_A,
      answeredOrderId: ORDER_B,
    });
  });

  it('answers INTERNAL_ERROR to an item trading answered with neither an order nor a refusal', async () => {
    const { readAs } = reads(async () => ({ answers: [{ outcome: undefined }] }));
    await expect(readAs('req-a', PARTNER_A, ORDER_A)).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});

describe('coalescedQuotes', () => {
  /** Trading's rule, written out: a refusal for the amount 'bad', else a quote naming its partner; answers as `order` places them. */
  function quotes(
    order: (answers: trading.CreateQuotesAnswer[]) => trading.CreateQuotesAnswer[] = (answers) => answers,
  ) {
    const calls: trading.CreateQuotesItem[][] = [];
    const createQuote = coalescedQuotes(
      {
        createQuotes: async (request) => {
          calls.push(request.items);
          const answers = request.items.map(({ request: item, requestId }): trading.CreateQuotesAnswer => {
            const echo = { partnerId: item?.partnerId ?? '', requestId };
            return item?.kesAmount === 'bad'
              ? {
                  outcome: {
                    $case: 'refusal',
                    refusal: itemRefusal(new AppError('VALIDATION_FAILED', { fields: ['kesAmount'] })),
                  },
                  ...echo,
                }
              : { outcome: { $case: 'quote', quote: { quoteId: `q-${item?.partnerId}` } as trading.Quote }, ...echo };
          });
          return { answers: order(answers) };
        },
      },
      { batchItemsMax: 64, windowMs: 0, deadlineMs: 5_000 },
      logger,
    );
    const ask = (requestId: string, partnerId: string, kesAmount: string) =>
      runWithContext({ requestId, partnerId }, () => createQuote({ partnerId, side: 'buy', kesAmount }));
    return { ask, calls };
  }

  it("sends quotes asked together as one call, each answered as its own: a quote beside a neighbour's refusal", async () => {
    const { ask, calls } = quotes();
    const [good, bad] = await Promise.allSettled([ask('req-a', PARTNER_A, '100.00'), ask('req-b', PARTNER_B, 'bad')]);
    expect(good).toEqual({ status: 'fulfilled', value: { quoteId: `q-${PARTNER_A}` } });
    expect((bad as PromiseRejectedResult).reason).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['kesAmount'] });
    expect(calls).toEqual([
      [
        { request: { partnerId: PARTNER_A, side: 'buy', kesAmount: '100.00' }, requestId: 'req-a' },
        { request: { partnerId: PARTNER_B, side: 'buy', kesAmount: 'bad' }, requestId: 'req-b' },
      ],
    ]);
  });

  it("never hands out a quote answered at another item's place (partner or request id not the item's): INTERNAL_ERROR, logged", async () => {
    const { ask } = quotes((answers) => [...answers].reverse());
    const outcomes = await Promise.allSettled([
      ask('req-a', PARTNER_A, '100.00'),
      ask('req-b', PARTNER_B, '200.00'),
      ask('req-c', PARTNER_A, '300.00'),
    ]);
    expect(outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason?.code)).toEqual([
      'INTERNAL_ERROR',
      undefined,
      'INTERNAL_ERROR',
    ]);
    expect(outcomes[1]).toEqual({ status: 'fulfilled', value: { quoteId: `q-${PARTNER_B}` } });
    expect(logger.error).toHaveBeenCalledTimes(2);
    expect(logger.error.mock.calls[0][1]).toMatchObject({
      itemRequestId: 'req-a',
      partnerId: PARTNER_A,
      answeredRequestId: 'req-c',
    });
  });
});
