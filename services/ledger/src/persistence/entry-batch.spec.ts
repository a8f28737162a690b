// Proves that a batch of entries written in one statement carries, for each posting, the
// balance, version and held amount the account has right after that posting's own entry
// (as the same entries posted one by one would leave them), refuses a floor breach without
// changing what it holds, and writes each account's final state once. The statement is
// captured by a fake manager: the SQL itself is proved against PostgreSQL in
// test/post-holds.int.spec.ts.
import { Big } from '@platform/money';
import type { EntityManager } from '@platform/persistence';
import type { AccountState } from '../domain/account';
import { InsufficientFundsError, EntryBatch } from './journal.repository';

const account = (id: string, state: Partial<AccountState>): AccountState => ({
  id,
  currency: 'KES',
  partnerId: null,
  code: 'treasury',
  posted: '0',
  held: '0',
  version: '0',
  allowNegative: true,
  ...state,
});

const PARTNER = account('a-partner', {
  partnerId: 'p',
  code: null,
  posted: '1000',
  held: '180',
  version: '1',
  allowNegative: false,
});
const TREASURY = account('b-treasury', { posted: '-5000', version: '7' });

const settlement = (entryId: string, amount: string) => ({
  entryId,
  kind: 'test',
  partnerId: 'p',
  postings: [
    { accountId: PARTNER.id, currency: 'KES' as const, amount: new Big(amount).times(-1) },
    { accountId: TREASURY.id, currency: 'KES' as const, amount: new Big(amount) },
  ],
  metadata: {},
});

/** A transaction's manager whose connection captures the prepared statement the batch sends on it. */
function capturingManager(): { manager: EntityManager; parameters: () => unknown[][] } {
  const calls: unknown[][] = [];
  const client = {
    query: async ({ values }: { values: unknown[] }) => {
      calls.push(values);
      return { rows: (values[9] as string[]).map((_, index) => ({ id: String(index + 1) })) };
    },
  };
  const manager = { queryRunner: { isReleased: false, connect: async () => client } } as unknown as EntityManager;
  return { manager, parameters: () => calls };
}

describe('EntryBatch', () => {
  it('gives each posting the balance, version and held after its own entry, and writes each account once', async () => {
    const batch = new EntryBatch(new Map([PARTNER, TREASURY].map((state) => [state.id, state])));
    batch.add(settlement('e1', '80'), 'h1', { accountId: PARTNER.id, amount: new Big('100') });
    batch.add(settlement('e2', '50'), 'h2', { accountId: PARTNER.id, amount: new Big('50') });
    expect(batch.state.get(PARTNER.id)).toMatchObject({ posted: '870', held: '30', version: '3' });
    expect(batch.state.get(TREASURY.id)).toMatchObject({ posted: '-4870', held: '0', version: '9' });

    const { manager, parameters } = capturingManager();
    await batch.write(manager);
    const [values] = parameters();
    expect(values!.slice(0, 2)).toEqual([
      ['e1', 'e2'],
      ['test', 'test'],
    ]);
    // Accounts: id order, final state once each.
    expect(values!.slice(5, 9)).toEqual([
      [PARTNER.id, TREASURY.id],
      ['870', '-4870'],
      ['30', '0'],
      ['3', '9'],
    ]);
    // Postings in the order added: entry, account, amount, balance after, version after, for partner, held after.
    expect(values!.slice(9, 17)).toEqual([
      ['e1', 'e1', 'e2', 'e2'],
      [PARTNER.id, TREASURY.id, PARTNER.id, TREASURY.id],
      ['KES', 'KES', 'KES', 'KES'],
      ['-80', '80', '-50', '50'],
      ['920', '-4920', '870', '-4870'],
      ['2', '8', '3', '9'],
      [true, false, true, false],
      ['80', '0', '30', '0'],
    ]);
  });

  it('refuses a post past the partner floor and keeps what it held before it', () => {
    const batch = new EntryBatch(new Map([PARTNER, TREASURY].map((state) => [state.id, state])));
    batch.add(settlement('e1', '800'), 'h1', { accountId: PARTNER.id, amount: new Big('100') });
    // 200 posted, 80 held: 120 available, so 150 without a hold releasing it is refused.
    expect(() => batch.add(settlement('e2', '150'), 'h2')).toThrow(InsufficientFundsError);
    expect(batch.state.get(PARTNER.id)).toMatchObject({ posted: '200', held: '80', version: '2' });
  });

  it('counts a hold released outside the batch (an expiry) in the held amount the next posting sees', () => {
    const batch = new EntryBatch(new Map([PARTNER, TREASURY].map((state) => [state.id, state])));
    batch.released(PARTNER.id, new Big('80'));
    batch.add(settlement('e1', '100'), 'h1', { accountId: PARTNER.id, amount: new Big('100') });
    expect(batch.state.get(PARTNER.id)).toMatchObject({ posted: '900', held: '0', version: '2' });
  });

  it('writes nothing when no entry was added', async () => {
    const { manager, parameters } = capturingManager();
    await new EntryBatch(new Map()).write(manager);
    expect(parameters()).toEqual([]);
  });
});
