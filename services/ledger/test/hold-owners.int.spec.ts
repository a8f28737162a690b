// Proves the ledger's side of hold owners against the real stack: an owner is accepted only
// in the shape "<service>:<kind>:<id>" with the caller's own identity as <service>; it is not
// part of the placement's identity, so a retry of a hold placed without one adopts it (and a
// retry naming another owner is LEDGER_ID_REUSED); ListOwnedHolds gives each service its own
// pending holds only, never one placed without an owner; and an adopted owner is reconciled
// like any other (payouts voids a hold whose transfer does not exist).
import { randomUUID } from 'node:crypto';
import type { PromiseClient } from '@platform/grpc';
import { ledger } from '@platform/proto';
import { clientAs, createTestPartner, TestPartner, waitFor } from '@platform/testing';
import { codeOf, fundKes, kesBalance, useLedgerSpec } from './ledger-support';

type AsService = PromiseClient<typeof ledger.LedgerService>;

describe('hold owners', () => {
  const spec = useLedgerSpec();
  let asPayouts: AsService;
  let asTrading: AsService;
  let partner: TestPartner;

  beforeAll(async () => {
    asPayouts = clientAs('payouts', ledger.LedgerService, { upstream: 'ledger' });
    asTrading = clientAs('trading', ledger.LedgerService, { upstream: 'ledger' });
    partner = await createTestPartner();
    await fundKes(spec.client, partner.partnerId, '1000.00');
  });

  afterAll(async () => {
    for (const each of [asPayouts, asTrading]) each.close();
  });

  const place = (as: AsService, extra: { holdId?: string; owner?: string; amount?: string } = {}) =>
    as.placeHold({
      holdId: extra.holdId ?? randomUUID(),
      accountId: partner.kesAccountId,
      amount: extra.amount ?? '10.00',
      metadata: { purpose: 'hold-owner-test' },
      owner: extra.owner,
    });

  /** Every pending hold `as` may list, page by page (bounded). */
  async function listed(as: AsService): Promise<string[]> {
    const ids: string[] = [];
    let afterHoldId: string | undefined;
    for (let page = 0; page < 20; page += 1) {
      const { holds } = await as.listOwnedHolds({
        placedBefore: new Date(Date.now() + 60_000).toISOString(),
        afterHoldId,
        limit: 500,
      });
      ids.push(...holds.map((hold) => hold.holdId));
      if (holds.length < 500) return ids;
      afterHoldId = holds[holds.length - 1].holdId;
    }
    return ids;
  }

  it("refuses an owner that is malformed or names another service than the caller's", async () => {
    const id = randomUUID();
    for (const owner of [
      `payouts:transfer:${id}`,
      `trading:order:${id}:x`,
      'trading:order:',
      `trading:Order:${id}`,
      `trading:order:${'a'.repeat(65)}`,
    ]) {
      expect({ owner, code: await codeOf(place(asTrading, { owner })) }).toEqual({ owner, code: 'VALIDATION_FAILED' });
    }
    expect(await codeOf(asTrading.listOwnedHolds({ placedBefore: 'yesterday', limit: 10 }))).toBe('VALIDATION_FAILED');
    expect(await codeOf(asTrading.listOwnedHolds({ placedBefore: new Date().toISOString(), limit: 501 }))).toBe(
      'VALIDATION_FAILED',
    );
    expect((await kesBalance(spec.client, partner.partnerId)).held).toBe('0.00');
  });

  it('lets a retry adopt an owner, refuses a retry naming another, and reconciles the adopted owner', async () => {
    const holdId = randomUUID();
    const unowned = await place(asPayouts, { holdId });
    expect(unowned.owner).toBeUndefined();
    // Never listed while it has no owner, to no one.
    expect(await listed(asPayouts)).not.toContain(holdId);
    const missingTransfer = `payouts:transfer:${randomUUID()}`;
    const adopted = await place(asPayouts, { holdId, owner: missingTransfer });
    expect(adopted).toMatchObject({ holdId, status: 'pending', owner: missingTransfer, amount: '10.00' });
    expect(await codeOf(place(asPayouts, { holdId, owner: `payouts:usdt_send:${randomUUID()}` }))).toBe(
      'LEDGER_ID_REUSED',
    );
    expect(await codeOf(place(asPayouts, { holdId, owner: missingTransfer, amount: '11.00' }))).toBe(
      'LEDGER_ID_REUSED',
    );
    expect(await listed(asTrading)).not.toContain(holdId);

    // No transfer has that id: payouts' reconciler voids the hold once it is old enough (2 s on the test stack).
    const voided = await waitFor(
      async () => {
        const hold = await spec.client.getHold({ holdId });
        return hold.status === 'pending' ? undefined : hold;
      },
      { what: `hold ${holdId} reconciled`, timeoutMs: 30_000 },
    );
    expect(voided).toMatchObject({ status: 'voided', postedAmount: '0.00' });
    expect((await kesBalance(spec.client, partner.partnerId)).held).toBe('0.00');
  });

  it('never lists a hold placed without an owner, so no reconciler touches it', async () => {
    const hold = await place(asTrading);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await listed(asTrading)).not.toContain(hold.holdId);
    expect((await spec.client.getHold({ holdId: hold.holdId })).status).toBe('pending');
    await spec.client.voidHold({ holdId: hold.holdId });
  });
});
