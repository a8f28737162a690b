// Proves which stored fee schedules can be applied (bps integer 0..10000, flat
// and cap non-negative with at most 2 decimals, cap absent or >= flat), that a
// missing profile or any bad value refuses with FEE_PRICING_INVALID, and that
// each bad field is named for the operator's door (ConfigurePartner).
import { checkFeeSchedule, formatFeeSchedule, storedFeeSchedule } from './fee-schedule';

describe('checkFeeSchedule', () => {
  it.each([
    [{ feeBps: 100, feeFlatKes: '10.00', feeCapKes: '500.00' }],
    [{ feeBps: 0, feeFlatKes: '0.00', feeCapKes: null }],
    [{ feeBps: 10000, feeFlatKes: '0', feeCapKes: undefined }],
    [{ feeBps: 50, feeFlatKes: '10.5', feeCapKes: '10.50' }], // cap equal to flat
    [{ feeBps: 50, feeFlatKes: '0.00', feeCapKes: '0.00' }], // fee-free by cap
  ])('accepts %p', (raw) => {
    expect(checkFeeSchedule(raw).badFields).toEqual([]);
  });

  it.each([
    [{ feeBps: -1, feeFlatKes: '0.00', feeCapKes: null }, ['feeBps']],
    [{ feeBps: 10001, feeFlatKes: '0.00', feeCapKes: null }, ['feeBps']],
    [{ feeBps: 1.5, feeFlatKes: '0.00', feeCapKes: null }, ['feeBps']],
    [{ feeBps: '100', feeFlatKes: '0.00', feeCapKes: null }, ['feeBps']],
    [{ feeBps: Number.NaN, feeFlatKes: '0.00', feeCapKes: null }, ['feeBps']],
    [{ feeBps: 100, feeFlatKes: '1.234', feeCapKes: null }, ['feeFlatKes']],
    [{ feeBps: 100, feeFlatKes: '-1.00', feeCapKes: null }, ['feeFlatKes']],
    [{ feeBps: 100, feeFlatKes: '', feeCapKes: null }, ['feeFlatKes']],
    [{ feeBps: 100, feeFlatKes: 10, feeCapKes: null }, ['feeFlatKes']],
    [{ feeBps: 100, feeFlatKes: '1e2', feeCapKes: null }, ['feeFlatKes']],
    [{ feeBps: 100, feeFlatKes: '10.00', feeCapKes: 'none' }, ['feeCapKes']],
    [{ feeBps: 100, feeFlatKes: '10.00', feeCapKes: '' }, ['feeCapKes']],
    [{ feeBps: 100, feeFlatKes: '10.00', feeCapKes: '5.001' }, ['feeCapKes']],
    [{ feeBps: 100, feeFlatKes: '10.00', feeCapKes: '9.99' }, ['feeCapKes']], // cap below flat
    [{ feeBps: 20000, feeFlatKes: 'x', feeCapKes: '-1' }, ['feeBps', 'feeFlatKes', 'feeCapKes']],
  ])('refuses %p naming %p', (raw, fields) => {
    const check = checkFeeSchedule(raw);
    expect(check.schedule).toBeNull();
    expect(check.badFields).toEqual(fields);
  });
});

describe('storedFeeSchedule', () => {
  it('gives the schedule when it can be applied', () => {
    const result = storedFeeSchedule({ feeBps: 100, feeFlatKes: '10.00', feeCapKes: null });
    if (!('schedule' in result)) throw new Error('expected a schedule');
    expect(formatFeeSchedule(result.schedule)).toEqual({ feeBps: 100, feeFlatKes: '10.00', feeCapKes: null });
  });

  it('refuses a partner without a profile with FEE_PRICING_INVALID', () => {
    const result = storedFeeSchedule(null);
    if (!('refusal' in result)) throw new Error('expected a refusal');
    expect(result.refusal.code).toBe('FEE_PRICING_INVALID');
    expect(result.refusal.httpStatus).toBe(503);
    expect(result.problems).toEqual(['no trading profile']);
  });

  it('refuses a corrupt stored value with FEE_PRICING_INVALID and says which, for the log only', () => {
    const result = storedFeeSchedule({ feeBps: 100, feeFlatKes: '1.234', feeCapKes: null });
    if (!('refusal' in result)) throw new Error('expected a refusal');
    expect(result.refusal.code).toBe('FEE_PRICING_INVALID');
    expect(result.refusal.errorCode).toBeUndefined();
    expect(result.problems).toEqual(['feeFlatKes invalid']);
  });
});

describe('formatFeeSchedule', () => {
  it('stores amounts at exactly 2 decimals', () => {
    const check = checkFeeSchedule({ feeBps: 5, feeFlatKes: '10', feeCapKes: '500.5' });
    if (check.schedule === null) throw new Error('expected a schedule');
    expect(formatFeeSchedule(check.schedule)).toEqual({ feeBps: 5, feeFlatKes: '10.00', feeCapKes: '500.50' });
  });
});
