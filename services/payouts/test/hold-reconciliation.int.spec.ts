// Proves payouts' reconciliation of its ledger holds against the real stack (the test stack
// looks every 0.5 s at holds at least 2 s old): a hold naming a transfer that does not exist
// is voided (the ordinary balanced void: available back, nothing posted); a confirmed
// transfer whose bank has not answered yet keeps its hold through those passes and posts it
// when the bank pays; a hold naming that live transfer is listed to payouts (never to
// trading), kept while the transfer lives and voided once it is final.
import { randomUUID } from 'node:crypto';
import type { PromiseClient } from '@platform/grpc';
import { ledger } from '@platform/proto';
import { clientAs, plantedHolds } from '@platform/testing';
import { kesBalance, latestCode, payoutsPartner, PayoutsPartner, transferBody, transferReaches } from './support';

type LedgerAs = PromiseClient<typeof ledger.LedgerService>;

describe('hold reconciliation (payouts)', () => {
  let ctx: PayoutsPartner;
  let asPayouts: LedgerAs;
  let asTrading: LedgerAs;

  beforeAll(async () => {
    ctx = await payoutsPartner({ fundKes: '1000.00' });
    asPayouts = clientAs('payouts', ledger.LedgerService, { upstream: 'ledger' });
    asTrading = clientAs('trading', ledger.LedgerService, { upstream: 'ledger' });
  });

  afterAll(() => {
    ctx.receiver.close();
    asPayouts.close();
    asTrading.close();
  });

  const place = (owner: string, amount: string) =>
    plantedHolds(asPayouts).place(ctx.partner.kesAccountId, amount, owner);
  const resolved = (holdId: string) => plantedHolds(asPayouts).resolved(holdId);

  async function listedTo(as: LedgerAs, holdId: string): Promise<boolean> {
    const { holds } = await as.listOwnedHolds({
      placedBefore: new Date(Date.now() + 60_000).toISOString(),
      limit: 500,
    });
    return holds.some((hold) => hold.holdId === holdId);
  }

  it("voids a hold whose transfer does not exist, and keeps a confirmed transfer's hold until the bank pays it", async () => {
    // The sandbox bank takes a NOANSWER payment without answering; the retry, a lease (3 s) later, is answered and paid.
    const created = await ctx.http.post(
      '/v1/transfers',
      transferBody({ destination: { accountNumber: '254722222222', accountName: 'NOANSWER Reconcile' } }),
    );
    expect(created.status).toBe(202);
    const transferId = created.body.id as string;
    const orphan = await place(`payouts:transfer:${randomUUID()}`, '50.00');
    const planted = await place(`payouts:transfer:${transferId}`, '10.00');
    expect(await listedTo(asPayouts, planted.holdId)).toBe(true);
    expect(await listedTo(asTrading, planted.holdId)).toBe(false);
    expect(await kesBalance(ctx.http)).toMatchObject({ held: '185.00', available: '815.00' });

    const code = await latestCode(ctx.http, transferId);
    expect((await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code })).status).toBe(200);

    expect(await resolved(orphan.holdId)).toMatchObject({
      status: 'voided',
      postedAmount: '0.00',
      owner: orphan.owner,
    });
    // The transfer's own hold was looked at too, older than the orphan: never voided, posted once the bank paid.
    await transferReaches(ctx.http, transferId, 'settled');
    expect(await asPayouts.getHold({ holdId: transferId })).toMatchObject({
      status: 'posted',
      postedAmount: '125.00',
      owner: `payouts:transfer:${transferId}`,
    });
    // Its owner is final now: the other hold naming it has no one left to resolve it.
    expect(await resolved(planted.holdId)).toMatchObject({ status: 'voided', postedAmount: '0.00' });
    expect(await kesBalance(ctx.http)).toMatchObject({ held: '0.00', available: '875.00' });
  });
});
