// Proves a batch of quotes' partner reads, against PostgreSQL: the fee schedules of several
// partners in one statement and their sandbox rate pins in one more give, for every partner
// asked, exactly what that partner's own read gives, keyed by that partner whatever order
// the rows come back in; a partner without a profile or a pin is absent, never another's.
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import { createDataSource, DataSource } from '@platform/persistence';
import { loadTestStack } from '@platform/testing';
import { PartnerProfilesRepository } from '../src/persistence/partner-profiles.repository';
import { SandboxRateOverridesRepository } from '../src/persistence/sandbox-rate-overrides.repository';

let db: DataSource;
const profiled: string[] = [];
const pinned: string[] = [];

beforeAll(async () => {
  db = await createDataSource({
    url: loadTestStack().databases.trading ?? '',
    applicationName: 'batch-reads-spec',
    poolSize: 2,
  }).initialize();
});

afterAll(async () => {
  if (db === undefined) return;
  await db.query('DELETE FROM sandbox_rate_overrides WHERE partner_id = ANY($1::uuid[])', [pinned]);
  await db.query('DELETE FROM partner_profiles WHERE partner_id = ANY($1::uuid[])', [profiled]);
  await db.destroy();
});

async function profile(feeBps: number, feeFlatKes: string, feeCapKes: string | null): Promise<string> {
  const partnerId = randomUUID();
  await db.query(
    `INSERT INTO partner_profiles (partner_id, status, buy_mode, sell_mode, fee_bps, fee_flat_kes, fee_cap_kes, per_order_cap_kes, daily_cap_kes)
     VALUES ($1, 'active', 'debit_first', 'deposit', $2, $3, $4, 1000000.00, 100000000.00)`,
    [partnerId, feeBps, feeFlatKes, feeCapKes],
  );
  profiled.push(partnerId);
  return partnerId;
}

async function pin(partnerId: string, bid: string, ask: string, halted: boolean): Promise<void> {
  await new SandboxRateOverridesRepository(db).upsert({
    partnerId,
    bid: new Big(bid),
    ask: new Big(ask),
    haltedAt: halted ? new Date() : null,
  });
  pinned.push(partnerId);
}

describe("a batch's partner reads", () => {
  it('give each partner asked its own fee schedule and pin, and nothing for a partner that has none', async () => {
    const first = await profile(50, '0.00', null);
    const second = await profile(0, '1.00', '25.00');
    const third = await profile(125, '2.50', '40.00');
    const stranger = randomUUID();
    await pin(first, '129.0000', '130.0000', false);
    await pin(third, '120.5000', '121.2500', true);
    const asked = [third, stranger, first, second, first];

    const profiles = new PartnerProfilesRepository(db);
    const schedules = await profiles.findFeeSchedules(asked);
    expect([...schedules.keys()].sort()).toEqual([first, second, third].sort());
    for (const partnerId of asked) {
      expect(schedules.get(partnerId) ?? null).toEqual(await profiles.findFeeSchedule(partnerId));
    }
    expect(schedules.get(second)).toEqual({ feeBps: 0, feeFlatKes: '1.00', feeCapKes: '25.00' });

    const overrides = new SandboxRateOverridesRepository(db);
    const pins = await overrides.findMany(asked);
    expect([...pins.keys()].sort()).toEqual([first, third].sort());
    for (const partnerId of asked) {
      expect(pins.get(partnerId) ?? null).toEqual(await overrides.find(partnerId));
    }
    expect(pins.get(third)?.ask.toFixed(4)).toBe('121.2500');
    expect(pins.get(third)?.haltedAt).not.toBeNull();
    expect(pins.get(first)?.haltedAt).toBeNull();
  });
});
