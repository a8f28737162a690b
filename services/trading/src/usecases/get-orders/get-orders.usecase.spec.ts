// Proves partners' order reads answered together: each item gets its own
// partner's order or ORDER_NOT_FOUND (another partner's, a missing one, an id
// that is not a UUID), answers in the items' order, one read for the whole batch
// with each id once (none when no id is a UUID), and more than the batch bound
// refused whole.
import type { OrderRecord } from '../../domain/order';
import { GetOrdersUseCase } from './get-orders.usecase';

const MINE = '0b6f3a3e-5f8e-4a39-9d0c-6f1f3d2b9a10';
const THEIRS = '0b6f3a3e-5f8e-4a39-9d0c-6f1f3d2b9a11';
const MISSING = '0b6f3a3e-5f8e-4a39-9d0c-6f1f3d2b9a12';
const ITEMS_MAX = 8;
const PARTNER_ID = '6a1f0c55-2b7e-4c1e-8a37-0b1c2d3e4f50';
const OTHER_PARTNER_ID = 'c5d0e4a2-1111-4a2b-9c3d-000000000001';

function useCase(rows: Array<Pick<OrderRecord, 'orderId' | 'partnerId'>>) {
  const reads: string[][] = [];
  const orders = {
    readMany: async (orderIds: readonly string[]) => {
      reads.push([...orderIds]);
      return rows.filter((row) => orderIds.includes(row.orderId)) as OrderRecord[];
    },
  };
  return { getOrders: new GetOrdersUseCase(orders, ITEMS_MAX), reads };
}

const outcomeOf = (outcome: { order: OrderRecord } | { refusal: { code: string } }) =>
  'order' in outcome ? outcome.order.orderId : outcome.refusal.code;

describe('GetOrdersUseCase', () => {
  it("answers each item with its own partner's order or ORDER_NOT_FOUND, in the items' order, from one read", async () => {
    const { getOrders, reads } = useCase([
      { orderId: MINE, partnerId: PARTNER_ID },
      { orderId: THEIRS, partnerId: OTHER_PARTNER_ID },
    ]);
    const outcomes = await getOrders.execute([
      { partnerId: PARTNER_ID, orderId: THEIRS },
      { partnerId: PARTNER_ID, orderId: MINE },
      { partnerId: PARTNER_ID, orderId: MISSING },
      { partnerId: OTHER_PARTNER_ID, orderId: THEIRS },
      { partnerId: PARTNER_ID, orderId: "x' OR 1=1" },
      { partnerId: OTHER_PARTNER_ID, orderId: MINE },
    ]);
    expect(outcomes.map(outcomeOf)).toEqual([
      'ORDER_NOT_FOUND',
      MINE,
      'ORDER_NOT_FOUND',
      THEIRS,
      'ORDER_NOT_FOUND',
      'ORDER_NOT_FOUND',
    ]);
    expect(reads).toEqual([[THEIRS, MINE, MISSING]]);
  });

  it('answers the same order to each item that asks for it, and reads nothing when no id is a UUID', async () => {
    const { getOrders, reads } = useCase([{ orderId: MINE, partnerId: PARTNER_ID }]);
    const twice = await getOrders.execute([
      { partnerId: PARTNER_ID, orderId: MINE },
      { partnerId: PARTNER_ID, orderId: MINE },
    ]);
    expect(twice.map(outcomeOf)).toEqual([MINE, MINE]);
    const none = useCase([]);
    await expect(none.getOrders.execute([{ partnerId: PARTNER_ID, orderId: 'not-a-uuid' }])).resolves.toEqual([
      { refusal: expect.objectContaining({ code: 'ORDER_NOT_FOUND' }) },
    ]);
    expect(none.reads).toEqual([]);
    expect(reads).toEqual([[MINE]]);
  });

  it('refuses more items than one batch may carry, whole and without reading', async () => {
    const { getOrders, reads } = useCase([]);
    const items = Array.from({ length: ITEMS_MAX + 1 }, () => ({
      partnerId: PARTNER_ID,
      orderId: MINE,
    }));
    await expect(getOrders.execute(items)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', fields: ['items'] });
    expect(reads).toEqual([]);
  });
});
