// Proves ConfigurePartner's strict checking: every field required, enums
// closed, fee schedule and caps at KES scale, every bad field named at once,
// and the stored form canonical (2-decimal amounts, null cap when absent).
import { AppError } from '@platform/errors';
import { formatPartnerProfile, parsePartnerProfile, PartnerProfileInput, PROFILE_DEFAULTS } from './partner-profile';

const valid: PartnerProfileInput = {
  partnerId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
  status: 'active',
  buyMode: 'debit_first',
  sellMode: 'deposit',
  feeBps: 50,
  feeFlatKes: '0.00',
  feeCapKes: undefined,
  perOrderCapKes: '1000000.00',
  dailyCapKes: '5000000.00',
};

function fieldsOf(input: PartnerProfileInput): string {
  try {
    parsePartnerProfile(input);
  } catch (error) {
    return (error as AppError).partnerMessage;
  }
  return 'accepted';
}

describe('parsePartnerProfile', () => {
  it('accepts the documented defaults and formats them canonically', () => {
    expect(formatPartnerProfile(parsePartnerProfile(valid))).toEqual({
      partnerId: valid.partnerId,
      status: PROFILE_DEFAULTS.status,
      buyMode: PROFILE_DEFAULTS.buyMode,
      sellMode: PROFILE_DEFAULTS.sellMode,
      feeBps: PROFILE_DEFAULTS.feeBps,
      feeFlatKes: PROFILE_DEFAULTS.feeFlatKes,
      feeCapKes: PROFILE_DEFAULTS.feeCapKes,
      perOrderCapKes: PROFILE_DEFAULTS.perOrderCapKes,
      dailyCapKes: PROFILE_DEFAULTS.dailyCapKes,
    });
  });

  it('accepts every other mode and status, a cap, and a daily cap below the per-order cap', () => {
    const profile = parsePartnerProfile({
      ...valid,
      status: 'suspended',
      buyMode: 'pay_in',
      sellMode: 'balance',
      feeFlatKes: '10',
      feeCapKes: '500',
      dailyCapKes: '1000',
    });
    expect(formatPartnerProfile(profile)).toMatchObject({
      feeFlatKes: '10.00',
      feeCapKes: '500.00',
      dailyCapKes: '1000.00',
    });
  });

  it.each([
    [{ partnerId: 'not-a-uuid' }, 'partnerId'],
    [{ status: '' }, 'status'],
    [{ status: 'closed' }, 'status'],
    [{ buyMode: 'credit' }, 'buyMode'],
    [{ sellMode: '' }, 'sellMode'],
    [{ feeBps: 10001 }, 'feeBps'],
    [{ feeFlatKes: '' }, 'feeFlatKes'],
    [{ feeCapKes: '' }, 'feeCapKes'],
    [{ feeFlatKes: '10.00', feeCapKes: '5.00' }, 'feeCapKes'],
    [{ perOrderCapKes: '0.00' }, 'perOrderCapKes'],
    [{ perOrderCapKes: '1.001' }, 'perOrderCapKes'],
    [{ dailyCapKes: '' }, 'dailyCapKes'],
  ])('refuses %p', (change, field) => {
    expect(fieldsOf({ ...valid, ...change })).toBe(`Validation failed on: ${field}`);
  });

  it('names every bad field at once, in order', () => {
    expect(fieldsOf({ ...valid, partnerId: '', status: 'x', feeBps: 20000, dailyCapKes: '-1' })).toBe(
      'Validation failed on: partnerId, status, feeBps, dailyCapKes',
    );
  });
});
