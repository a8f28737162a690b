// The known schedules are bounded (the partner known longest forgotten first) and a fresh read replaces what was known.
import { Big } from '@platform/money';
import { KnownFeeSchedules } from './known-fee-schedules';

const schedule = (feeFlatKes: string) => ({
  raw: { feeBps: 0, feeFlatKes, feeCapKes: null },
  schedule: { percentBps: 0, flatKes: new Big(feeFlatKes), capKes: null },
});

describe('KnownFeeSchedules', () => {
  it('forgets the partner known longest once full, and a fresh read counts as new', () => {
    const known = new KnownFeeSchedules(2);
    known.remember('a', schedule('1.00'));
    known.remember('b', schedule('2.00'));
    known.remember('a', schedule('1.50')); // replaces a, now the newest
    known.remember('c', schedule('3.00')); // full: b goes
    expect(known.size).toBe(2);
    expect(known.get('a')).toEqual(schedule('1.50'));
    expect(known.get('b')).toBeUndefined();
    expect(known.get('c')).toEqual(schedule('3.00'));
    known.forget('a');
    expect(known.get('a')).toBeUndefined();
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new KnownFeeSchedules(0)).toThrow(/positive integer/);
    expect(() => new KnownFeeSchedules(1.5)).toThrow(/positive integer/);
  });
});
