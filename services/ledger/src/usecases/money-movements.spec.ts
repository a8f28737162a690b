// Proves what the ledger's money-movement lines say: an entry's amounts are the
// sum of its credit legs per currency, formatted at the currency's scale; each
// line has its message and names ids, amounts and currencies, never an account.
import type { Logger } from '@platform/logger';
import type { EntryRecord } from '../persistence/entries.repository';
import type { HoldRecord } from '../persistence/holds.repository';
import type { KesCreditRecord } from '../persistence/kes-credits.repository';
import { amountsMoved, loggedMoneyMovements } from './money-movements';

const PARTNER_ID = '6f1c2f1e-8d7a-4d0b-9a35-1f0b8e2c4d51';
const ACCOUNT_ID = '0b9f4c3a-6e2d-4f1a-8c7b-5d4e3f2a1b0c';

function posting(accountId: string, currency: 'KES' | 'USDT', amount: string) {
  return { accountId, currency, amount, balanceAfter: '0', versionAfter: '1' };
}

const entry: EntryRecord = {
  entryId: 'c5a9e1d2-3b4f-4a6e-8d7c-9b0a1f2e3d4c',
  kind: 'kes_transfer',
  partnerId: PARTNER_ID,
  requestHash: 'hash',
  metadata: { note: 'x' },
  createdAt: '2026-11-26T12:00:00.000Z',
  postings: [
    posting(ACCOUNT_ID, 'KES', '-130'),
    posting('a1', 'KES', '100'),
    posting('a2', 'KES', '30'),
    posting('a3', 'USDT', '0.5'),
    posting('a4', 'USDT', '-0.5'),
  ],
};

const hold: HoldRecord = {
  holdId: 'e7d6c5b4-a392-4817-b6f5-e4d3c2b1a090',
  accountId: ACCOUNT_ID,
  currency: 'KES',
  amount: '130.00',
  status: 'pending',
  postedAmount: '0.00',
  expiresAt: null,
  entryId: null,
  createdAt: '2026-11-26T12:00:00.000Z',
  resolvedAt: null,
  metadata: {},
  requestHash: 'hash',
  resolutionHash: null,
  owner: 'payouts:transfer:e7d6c5b4-a392-4817-b6f5-e4d3c2b1a090',
  expiredNow: false,
};

function capturingLogger() {
  const lines: Array<[string, Record<string, unknown>]> = [];
  const logger = {
    info: (message: string, meta: Record<string, unknown>) => lines.push([message, meta]),
  } as unknown as Logger;
  return { lines, movements: loggedMoneyMovements(logger) };
}

describe('amountsMoved', () => {
  it('sums the credit legs per currency at the currency scale', () => {
    expect(amountsMoved(entry)).toEqual({ KES: '130.00', USDT: '0.500000' });
  });
});

describe('loggedMoneyMovements', () => {
  it('writes one line per movement, with ids, amounts and currencies and no account id', () => {
    const { lines, movements } = capturingLogger();
    movements.entryPosted(entry);
    movements.holdPlaced(hold);
    movements.holdResolved({ ...hold, status: 'posted', postedAmount: '120.00', entryId: entry.entryId });
    movements.holdResolved({ ...hold, status: 'voided' });
    const credit: KesCreditRecord = {
      transactionId: 'f0e1d2c3-b4a5-4697-8877-665544332211',
      bankTransactionId: 'SBX123',
      partnerId: null,
      accountId: ACCOUNT_ID,
      amountKes: '100.00',
      rail: 'mpesa_paybill',
      railReference: 'REF-TYPED',
      receivedAt: '2026-11-26T12:00:00.000Z',
      entryId: entry.entryId,
      paymentReference: null,
    };
    movements.kesCreditRecorded(credit);

    expect(lines.map(([message]) => message)).toEqual([
      'entry posted',
      'hold placed',
      'hold posted',
      'hold voided',
      'KES credit recorded',
    ]);
    expect(lines[0][1]).toEqual({
      entryId: entry.entryId,
      kind: 'kes_transfer',
      partnerId: PARTNER_ID,
      amounts: { KES: '130.00', USDT: '0.500000' },
    });
    expect(lines[1][1]).toMatchObject({ holdId: hold.holdId, amount: '130.00', currency: 'KES' });
    expect(lines[2][1]).toMatchObject({
      holdId: hold.holdId,
      amount: '130.00',
      postedAmount: '120.00',
      entryId: entry.entryId,
    });
    expect(lines[4][1]).toMatchObject({
      transactionId: credit.transactionId,
      matched: false,
      amount: '100.00',
      currency: 'KES',
    });
    const written = JSON.stringify(lines);
    expect(written).not.toContain(ACCOUNT_ID);
    expect(written).not.toContain('REF-TYPED');
    expect(written).not.toContain('hash');
  });
});
