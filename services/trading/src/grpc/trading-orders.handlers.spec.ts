// Proves the GetOrders handler's translation: one answer per item in the items'
// order, an order as GetOrder answers it, a refusal as the AppError payload a
// single call carries (rebuilt whole by fromItemRefusal); a batch refused whole
// rejects the call; the batch's log context names every item's request id; and
// each item's outcome is counted by code in trading_batch_item_outcomes_total.
import { COALESCED_BATCH_ITEMS_MAX, fromItemRefusal } from '@platform/grpc';
import { currentContext, runWithContext } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { trading } from '@platform/proto';
import type { OrderRecord } from '../domain/order';
import { GetOrdersUseCase } from '../usecases/get-orders/get-orders.usecase';
import { BatchItemMetrics } from './batch-item-metrics';
import { toOrderMessage, tradingOrdersHandlers } from './trading-orders.handlers';

const PARTNER_ID = '6a1f0c55-2b7e-4c1e-8a37-0b1c2d3e4f50';
const ORDER: OrderRecord = {
  orderId: '0b6f3a3e-5f8e-4a39-9d0c-6f1f3d2b9a10',
  partnerId: PARTNER_ID,
  partnerReference: 'ref-1',
  side: 'buy',
  fundingMode: 'debit_first',
  status: 'funds_reserved',
  kesAmount: '1000.00',
  usdtAmount: '7.692307',
  rate: '130.0000',
  feeKes: '5.00',
  feeBps: 50,
  feeFlatKes: '0.00',
  feeCapKes: null,
  kesTotalAmount: '1005.00',
  expiresAt: new Date('2026-11-27T12:00:30.000Z'),
  kesDebitStatus: 'reserved',
  depositAddress: null,
  sendBefore: null,
  txHash: null,
  createdAt: new Date('2026-11-27T12:00:00.000Z'),
  paymentReference: null,
  walletId: null,
} as unknown as OrderRecord;

function handlers(seen: string[] = [], registry = new Registry()) {
  const getOrders = new GetOrdersUseCase(
    {
      readMany: async () => {
        seen.push(currentContext().requestId ?? '');
        return [ORDER];
      },
    },
    COALESCED_BATCH_ITEMS_MAX,
  );
  return tradingOrdersHandlers({ getOrders, batchItems: new BatchItemMetrics(registry) } as unknown as Parameters<
    typeof tradingOrdersHandlers
  >[0]);
}

const item = (orderId: string, requestId: string, partnerId = PARTNER_ID): trading.GetOrdersItem => ({
  partnerId,
  orderId,
  requestId,
});

describe('tradingOrdersHandlers getOrders', () => {
  it("answers each item in the items' order: the order as GetOrder answers it, or the refusal's payload", async () => {
    const seen: string[] = [];
    const registry = new Registry();
    const answer = await runWithContext({}, () =>
      handlers(seen, registry).getOrders({
        items: [
          item('0b6f3a3e-5f8e-4a39-9d0c-6f1f3d2b9a12', 'req-a'),
          item(ORDER.orderId, 'req-b'),
          item(ORDER.orderId, 'req-c', 'c5d0e4a2-1111-4a2b-9c3d-000000000001'),
        ],
      }),
    );
    const [missing, own, foreign] = answer.answers.map((entry) => entry.outcome);
    expect(own).toEqual({ $case: 'order', order: toOrderMessage(ORDER) });
    for (const refused of [missing, foreign]) {
      expect(refused?.$case).toBe('refusal');
      const error = fromItemRefusal((refused as { refusal: string }).refusal);
      expect(error).toMatchObject({ code: 'ORDER_NOT_FOUND' });
    }
    expect(seen).toEqual(['req-a,req-b,req-c']);
    const counted = await registry.getSingleMetric('trading_batch_item_outcomes_total')?.get();
    expect(counted?.values.map(({ labels, value }) => ({ ...labels, value }))).toEqual([
      { method: 'GetOrders', code: 'ORDER_NOT_FOUND', value: 2 },
      { method: 'GetOrders', code: 'OK', value: 1 },
    ]);
  });

  it('rejects a batch refused whole', async () => {
    const items = Array.from({ length: COALESCED_BATCH_ITEMS_MAX + 1 }, (_, index) =>
      item(ORDER.orderId, `req-${index}`),
    );
    await expect(runWithContext({}, () => handlers().getOrders({ items }))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
