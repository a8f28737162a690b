// Proves, against the real ledger and its database, that holds are two-phase and exact:
// placed within available only, posted in full or in part in one balanced entry, voided,
// expired by the sweeper, each exactly once (also when posts and voids race); that 50
// concurrent holds against a balance covering 25 leave exactly 25 and never a negative
// balance; that concurrent retries under one hold id place one hold and a different body
// under a used id is refused; and that the ledger still balances in every currency after.
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import { createTestPartner, TestPartner, waitFor } from '@platform/testing';
import { codeOf, fundKes, kesBalance, useLedgerSpec } from './ledger-support';

describe('holds', () => {
  const spec = useLedgerSpec();
  let feeRevenueKes: string;

  beforeAll(async () => {
    feeRevenueKes = (await spec.client.getServiceAccount({ code: 'fee_revenue', currency: 'KES' })).accountId;
  });

  async function fundedPartner(amountKes: string): Promise<TestPartner> {
    const partner = await createTestPartner();
    await fundKes(spec.client, partner.partnerId, amountKes);
    return partner;
  }

  const place = (partner: TestPartner, amount: string, extra: { holdId?: string; expiresAt?: string } = {}) =>
    spec.client.placeHold({
      holdId: extra.holdId ?? randomUUID(),
      accountId: partner.kesAccountId,
      amount,
      expiresAt: extra.expiresAt,
      metadata: { purpose: 'test' },
    });

  const postRequest = (holdId: string, postAmount: string, feeKes: string) => ({
    holdId,
    postAmount,
    kind: 'kes_debit_test',
    metadata: {},
    // A zero leg is no posting: a fee of 0 leaves only the treasury leg.
    counterPostings: [
      { accountId: spec.treasuryKes, amount: new Big(postAmount).minus(feeKes).toFixed(2) },
      { accountId: feeRevenueKes, amount: feeKes },
    ].filter((posting) => !new Big(posting.amount).eq(0)),
  });

  it('lowers available at once and posts in full in one entry, exactly once', async () => {
    const partner = await fundedPartner('1000.00');
    const hold = await place(partner, '400.00');
    expect(hold).toMatchObject({ status: 'pending', amount: '400.00', postedAmount: '0.00', currency: 'KES' });
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({
      available: '600.00',
      held: '400.00',
      posted: '1000.00',
    });

    const request = postRequest(hold.holdId, '400.00', '4.00');
    const posted = await spec.client.postHold(request);
    expect(posted).toMatchObject({ status: 'posted', postedAmount: '400.00' });
    expect(posted.entryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({
      available: '600.00',
      held: '0.00',
      posted: '600.00',
    });

    // Treasury and fee revenue legs land on a shard of each: named here by the account callers know.
    const postings = await spec.pool.query(
      `SELECT coalesce(a.shard_of, a.id) AS account_id, p.amount::text AS amount
         FROM postings p JOIN accounts a ON a.id = p.account_id WHERE p.entry_id = $1 ORDER BY p.amount`,
      [posted.entryId],
    );
    expect(postings.rows).toEqual([
      { account_id: partner.kesAccountId, amount: '-400.000000' },
      { account_id: feeRevenueKes, amount: '4.000000' },
      { account_id: spec.treasuryKes, amount: '396.000000' },
    ]);

    expect(await spec.client.postHold(request)).toEqual(posted);
    expect(await codeOf(spec.client.postHold(postRequest(hold.holdId, '300.00', '3.00')))).toBe(
      'LEDGER_HOLD_ALREADY_RESOLVED',
    );
    expect(await codeOf(spec.client.voidHold({ holdId: hold.holdId }))).toBe('LEDGER_HOLD_ALREADY_RESOLVED');
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({ available: '600.00', held: '0.00' });
  });

  it('posts part of a hold and returns the rest to available', async () => {
    const partner = await fundedPartner('500.00');
    const hold = await place(partner, '300.00');
    const posted = await spec.client.postHold(postRequest(hold.holdId, '120.50', '0.50'));
    expect(posted).toMatchObject({ status: 'posted', amount: '300.00', postedAmount: '120.50' });
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({
      available: '379.50',
      held: '0.00',
      posted: '379.50',
    });
  });

  it('refuses a post above the hold, an unbalanced post and a post to an unknown hold', async () => {
    const partner = await fundedPartner('100.00');
    const hold = await place(partner, '50.00');
    expect(await codeOf(spec.client.postHold(postRequest(hold.holdId, '50.01', '0.00')))).toBe('VALIDATION_FAILED');
    expect(
      await codeOf(
        spec.client.postHold({
          ...postRequest(hold.holdId, '50.00', '1.00'),
          counterPostings: [{ accountId: spec.treasuryKes, amount: '49.00' }],
        }),
      ),
    ).toBe('VALIDATION_FAILED');
    expect(await codeOf(spec.client.postHold(postRequest(randomUUID(), '1.00', '0.00')))).toBe('LEDGER_HOLD_NOT_FOUND');
    expect(await spec.client.getHold({ holdId: hold.holdId })).toMatchObject({ status: 'pending' });
    await spec.client.voidHold({ holdId: hold.holdId });
  });

  it('voids exactly once, and a voided hold cannot be posted', async () => {
    const partner = await fundedPartner('200.00');
    const hold = await place(partner, '200.00');
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({ available: '0.00', held: '200.00' });
    const voided = await spec.client.voidHold({ holdId: hold.holdId });
    expect(voided).toMatchObject({ status: 'voided', postedAmount: '0.00' });
    expect(await spec.client.voidHold({ holdId: hold.holdId })).toEqual(voided);
    expect(await codeOf(spec.client.postHold(postRequest(hold.holdId, '200.00', '0.00')))).toBe(
      'LEDGER_HOLD_ALREADY_RESOLVED',
    );
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({
      available: '200.00',
      held: '0.00',
      posted: '200.00',
    });
  });

  it('expires a hold when its expiry passes, after which it cannot be posted', async () => {
    const partner = await fundedPartner('80.00');
    const hold = await place(partner, '80.00', { expiresAt: new Date(Date.now() + 1_000).toISOString() });
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({ available: '0.00' });
    const expired = await waitFor(
      async () => {
        const current = await spec.client.getHold({ holdId: hold.holdId });
        return current.status === 'expired' ? current : undefined;
      },
      { timeoutMs: 10_000, what: 'the hold to expire' },
    );
    expect(expired.resolvedAt).toBeDefined();
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({ available: '80.00', held: '0.00' });
    expect(await codeOf(spec.client.postHold(postRequest(hold.holdId, '80.00', '0.00')))).toBe(
      'LEDGER_HOLD_ALREADY_RESOLVED',
    );
    expect((await spec.client.voidHold({ holdId: hold.holdId })).status).toBe('expired');
  });

  it('resolves a hold once when posts and voids race', async () => {
    const partner = await fundedPartner('1000.00');
    for (let round = 0; round < 5; round += 1) {
      const hold = await place(partner, '100.00');
      const request = postRequest(hold.holdId, '100.00', '1.00');
      const outcomes = await Promise.allSettled([
        spec.client.postHold(request),
        spec.client.voidHold({ holdId: hold.holdId }),
        spec.client.postHold(request),
        spec.client.voidHold({ holdId: hold.holdId }),
      ]);
      const final = await spec.client.getHold({ holdId: hold.holdId });
      const winners = outcomes
        .filter((outcome) => outcome.status === 'fulfilled')
        .map((outcome) => (outcome as PromiseFulfilledResult<{ status: string }>).value.status);
      expect(winners.length).toBeGreaterThan(0);
      expect(new Set(winners)).toEqual(new Set([final.status]));
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected')
          expect((outcome.reason as { code: string }).code).toBe('LEDGER_HOLD_ALREADY_RESOLVED');
      }
      const entries = await spec.pool.query("SELECT count(*)::int AS n FROM entries WHERE metadata->>'holdId' = $1", [
        hold.holdId,
      ]);
      expect(entries.rows[0].n).toBe(final.status === 'posted' ? 1 : 0);
    }
    const balance = await kesBalance(spec.client, partner.partnerId);
    expect(balance.held).toBe('0.00');
  });

  it('lets exactly 25 of 50 concurrent holds through a balance that covers 25', async () => {
    const partner = await fundedPartner('250.00');
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => place(partner, '10.00')));
    const placed = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected') as PromiseRejectedResult[];
    expect(placed).toHaveLength(25);
    expect(refused.map((outcome) => (outcome.reason as { code: string }).code)).toEqual(
      Array(25).fill('LEDGER_INSUFFICIENT_FUNDS'),
    );
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({
      available: '0.00',
      held: '250.00',
      posted: '250.00',
    });
  });

  it('places one hold for concurrent retries under one id and refuses another body under it', async () => {
    const partner = await fundedPartner('100.00');
    const holdId = randomUUID();
    const results = await Promise.all(Array.from({ length: 10 }, () => place(partner, '30.00', { holdId })));
    expect(new Set(results.map((result) => JSON.stringify(result))).size).toBe(1);
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({ available: '70.00', held: '30.00' });
    expect(await codeOf(place(partner, '31.00', { holdId }))).toBe('LEDGER_ID_REUSED');
    expect(await codeOf(place(partner, '1000.00'))).toBe('LEDGER_INSUFFICIENT_FUNDS');
    await spec.client.voidHold({ holdId });
  });

  it('refuses malformed holds naming the fields', async () => {
    const partner = await createTestPartner();
    expect(
      await codeOf(
        spec.client.placeHold({ holdId: 'x', accountId: partner.kesAccountId, amount: '1.001', metadata: {} }),
      ),
    ).toBe('VALIDATION_FAILED');
    expect(
      await codeOf(
        spec.client.placeHold({ holdId: randomUUID(), accountId: randomUUID(), amount: '1.00', metadata: {} }),
      ),
    ).toBe('LEDGER_ACCOUNT_NOT_FOUND');
    expect(await codeOf(place(partner, '1.00', { expiresAt: new Date(Date.now() - 1_000).toISOString() }))).toBe(
      'VALIDATION_FAILED',
    );
    // More decimals than KES takes, judged once the account's currency is known: nothing held.
    expect(
      await codeOf(
        spec.client.placeHold({ holdId: randomUUID(), accountId: partner.kesAccountId, amount: '1.001', metadata: {} }),
      ),
    ).toBe('VALIDATION_FAILED');
    expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({ held: '0.00' });
  });
});
