// Proves a partner's read of one order: its own order is returned as read; another
// partner's order, a missing one and an id that is not a UUID are all ORDER_NOT_FOUND
// (the last without a read).
import type { OrderRecord } from '../../domain/order';
import { GetOrderUseCase } from './get-order.usecase';

const ORDER_ID = '0b6f3a3e-5f8e-4a39-9d0c-6f1f3d2b9a10';
const PARTNER_ID = '6a1f0c55-2b7e-4c1e-8a37-0b1c2d3e4f50';

function useCase(row: Partial<OrderRecord> | null) {
  const reads: string[] = [];
  const orders = {
    read: async (orderId: string) => {
      reads.push(orderId);
      return row as OrderRecord | null;
    },
  };
  return { getOrder: new GetOrderUseCase(orders), reads };
}

describe('GetOrderUseCase', () => {
  it("returns the partner's own order", async () => {
    const { getOrder, reads } = useCase({ orderId: ORDER_ID, partnerId: PARTNER_ID });
    await expect(getOrder.execute({ partnerId: PARTNER_ID, orderId: ORDER_ID })).resolves.toMatchObject({
      orderId: ORDER_ID,
    });
    expect(reads).toEqual([ORDER_ID]);
  });

  it("answers another partner's order as it answers a missing one", async () => {
    const other = useCase({ orderId: ORDER_ID, partnerId: 'c5d0e4a2-1111-4a2b-9c3d-000000000001' });
    await expect(other.getOrder.execute({ partnerId: PARTNER_ID, orderId: ORDER_ID })).rejects.toMatchObject({
      code: 'ORDER_NOT_FOUND',
    });
    const missing = useCase(null);
    await expect(missing.getOrder.execute({ partnerId: PARTNER_ID, orderId: ORDER_ID })).rejects.toMatchObject({
      code: 'ORDER_NOT_FOUND',
    });
  });

  it('refuses an id that is not a UUID without reading', async () => {
    const { getOrder, reads } = useCase(null);
    await expect(getOrder.execute({ partnerId: PARTNER_ID, orderId: "x' OR 1=1" })).rejects.toMatchObject({
      code: 'ORDER_NOT_FOUND',
    });
    expect(reads).toEqual([]);
  });
});
