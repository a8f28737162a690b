// Proves that a caller's balanced entry (a transfer with a fee leg) posts exactly once per
// entry id, also under concurrent retries; that a different body under a used id, an
// unbalanced entry and an overdraft are refused whole; that an account's history pages
// newest first with each posting's balance after; and that the ledger balances after.
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import { createTestPartner, TestPartner } from '@platform/testing';
import { codeOf, fundKes, kesBalance, useLedgerSpec } from './ledger-support';

describe('entries and history', () => {
  const spec = useLedgerSpec();
  let feeRevenueKes: string;
  let partner: TestPartner;

  beforeAll(async () => {
    feeRevenueKes = (await spec.client.getServiceAccount({ code: 'fee_revenue', currency: 'KES' })).accountId;
    partner = await createTestPartner();
    await fundKes(spec.client, partner.partnerId, '1000.00');
  });

  const transfer = (entryId: string, amountKes: string, feeKes: string) => ({
    entryId,
    kind: 'kes_transfer_test',
    partnerId: partner.partnerId,
    metadata: { reference: 'T1' },
    postings: [
      { accountId: partner.kesAccountId, amount: `-${amountKes}` },
      { accountId: spec.treasuryKes, amount: new Big(amountKes).minus(feeKes).toFixed(2) },
      { accountId: feeRevenueKes, amount: feeKes },
    ],
  });

  it('posts one entry for concurrent retries under one id and refuses a different body', async () => {
    const entryId = randomUUID();
    const before = await kesBalance(spec.client, partner.partnerId);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => spec.client.postEntry(transfer(entryId, '100.00', '2.00'))),
    );
    expect(new Set(results.map((result) => JSON.stringify(result))).size).toBe(1);
    expect(results[0]).toMatchObject({
      entryId,
      kind: 'kes_transfer_test',
      partnerId: partner.partnerId,
      metadata: { reference: 'T1' },
    });
    expect(results[0].postings).toHaveLength(3);
    expect(results[0].postings[0]).toMatchObject({
      accountId: partner.kesAccountId,
      currency: 'KES',
      amount: '-100.00',
    });
    const rows = await spec.pool.query('SELECT count(*)::int AS n FROM postings WHERE entry_id = $1', [entryId]);
    expect(rows.rows[0].n).toBe(3);
    const after = await kesBalance(spec.client, partner.partnerId);
    expect(new Big(before.available).minus(after.available).toFixed(2)).toBe('100.00');
    expect(await codeOf(spec.client.postEntry(transfer(entryId, '100.00', '3.00')))).toBe('LEDGER_ID_REUSED');
  });

  it('refuses an overdraft and an unbalanced entry whole', async () => {
    const before = await kesBalance(spec.client, partner.partnerId);
    expect(await codeOf(spec.client.postEntry(transfer(randomUUID(), '5000.00', '1.00')))).toBe(
      'LEDGER_INSUFFICIENT_FUNDS',
    );
    const unbalanced = transfer(randomUUID(), '10.00', '1.00');
    unbalanced.postings[2].amount = '2.00';
    expect(await codeOf(spec.client.postEntry(unbalanced))).toBe('VALIDATION_FAILED');
    expect(await kesBalance(spec.client, partner.partnerId)).toEqual(before);
  });

  it('pages an account history newest first with the balance after each posting', async () => {
    const history = await spec.client.listAccountHistory({
      accountId: partner.kesAccountId,
      page: { cursor: '', limit: 1 },
    });
    expect(history.items).toHaveLength(1);
    expect(history.items[0]).toMatchObject({ kind: 'kes_transfer_test', amount: '-100.00', balanceAfter: '900.00' });
    expect(history.page?.nextCursor).not.toBe('');
    const next = await spec.client.listAccountHistory({
      accountId: partner.kesAccountId,
      page: { cursor: history.page!.nextCursor, limit: 10 },
    });
    expect(next.items.map((item) => [item.kind, item.amount, item.balanceAfter])).toEqual([
      ['kes_credit', '1000.00', '1000.00'],
    ]);
    expect(next.page?.nextCursor).toBe('');
    expect(
      await codeOf(
        spec.client.listAccountHistory({ accountId: partner.kesAccountId, page: { cursor: '', limit: 201 } }),
      ),
    ).toBe('VALIDATION_FAILED');
  });

  it('reports a clean reconciliation', async () => {
    const report = await spec.client.checkLedger({});
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
