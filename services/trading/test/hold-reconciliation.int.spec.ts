// Proves trading's reconciliation of its ledger holds against the real stack (the test stack
// looks every 0.5 s at holds at least 2 s old): a hold naming an order that does not exist,
// or an order already settled (its flow posted its own hold before getting there), is voided
// with the ordinary balanced void, while the settled order's own posted hold and a hold placed
// without an owner are left as they are.
import { randomUUID } from 'node:crypto';
import type { PromiseClient } from '@platform/grpc';
import { ledger } from '@platform/proto';
import { clientAs, plantedHolds } from '@platform/testing';
import { balances, fundKes, OrderPartner, orderPartner, orderUntil, quote } from './order-support';

type LedgerAs = PromiseClient<typeof ledger.LedgerService>;

describe('hold reconciliation (trading)', () => {
  let p: OrderPartner;
  let asTrading: LedgerAs;

  beforeAll(async () => {
    p = await orderPartner();
    asTrading = clientAs('trading', ledger.LedgerService, { upstream: 'ledger' });
  });

  afterAll(() => asTrading.close());

  const place = (amount: string, owner?: string) =>
    plantedHolds(asTrading).place(p.partner.kesAccountId, amount, owner);
  const resolved = (holdId: string) => plantedHolds(asTrading).resolved(holdId);

  it('voids holds whose order is gone or final, and leaves posted and unowned holds alone', async () => {
    await fundKes(p.http, '1000.00');
    const q = await quote(p.http, 'buy', { kesAmount: '100.00' });
    const bought = await p.http.post('/v1/orders/buy', { quoteId: q.quoteId, partnerReference: `buy-${randomUUID()}` });
    expect(bought.status).toBe(202);
    const orderId = bought.body.orderId as string;
    await orderUntil(p.http, orderId, 'settled');
    const kesAfterBuy = (await balances(p.http)).KES;

    const missing = await place('20.00', `trading:order:${randomUUID()}`);
    const ofSettled = await place('30.00', `trading:order:${orderId}`);
    const unowned = await place('40.00');
    expect((await balances(p.http)).KES.held).toBe('90.00');

    expect(await resolved(missing.holdId)).toMatchObject({ status: 'voided', postedAmount: '0.00' });
    expect(await resolved(ofSettled.holdId)).toMatchObject({ status: 'voided', postedAmount: '0.00' });
    expect(await asTrading.getHold({ holdId: orderId })).toMatchObject({
      status: 'posted',
      owner: `trading:order:${orderId}`,
    });
    expect((await asTrading.getHold({ holdId: unowned.holdId })).status).toBe('pending');
    await asTrading.voidHold({ holdId: unowned.holdId });
    expect((await balances(p.http)).KES).toEqual(kesAfterBuy);
  });
});
