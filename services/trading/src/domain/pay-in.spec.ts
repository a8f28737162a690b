/** Proves the pay-in rules: reference shape and check digit, and which credit funds an order (exact, over, short, late, earliest). */
import { dammCheckDigit } from '@platform/crypto';
import { fundingCredit, isPaymentReference, newPaymentReference, nextPaymentCheck } from './pay-in';

const payBefore = new Date('2026-01-01T10:00:00.000Z');
const credit = (amountKes: string, receivedAt: string, id = amountKes) => ({
  bankTransactionId: id,
  railReference: 'R1',
  amountKes,
  receivedAt,
});

describe('payment reference', () => {
  it('is 12 digits starting with 9 whose Damm check passes, never an 11-digit paybill reference', () => {
    for (let i = 0; i < 500; i += 1) {
      const reference = newPaymentReference();
      expect(reference).toMatch(/^9\d{11}$/);
      expect(dammCheckDigit(reference)).toBe(0);
      expect(isPaymentReference(reference)).toBe(true);
    }
  });

  it('refuses a single changed digit and swapped neighbours', () => {
    const reference = newPaymentReference();
    const changed = reference.slice(0, 5) + String((Number(reference[5]) + 1) % 10) + reference.slice(6);
    expect(isPaymentReference(changed)).toBe(false);
    if (reference[6] !== reference[7])
      expect(isPaymentReference(reference.slice(0, 6) + reference[7] + reference[6] + reference.slice(8))).toBe(false);
    expect(isPaymentReference(reference.slice(1))).toBe(false);
  });
});

describe('fundingCredit', () => {
  it('an exact payment funds the order', () => {
    expect(fundingCredit([credit('1020.00', '2026-01-01T09:00:00.000Z')], '1020.00', payBefore)?.amountKes).toBe(
      '1020.00',
    );
  });

  it('an overpayment funds it (the excess stays in the balance)', () => {
    expect(fundingCredit([credit('2000.00', '2026-01-01T09:00:00.000Z')], '1020.00', payBefore)?.amountKes).toBe(
      '2000.00',
    );
  });

  it('short payments never add up', () => {
    expect(
      fundingCredit(
        [credit('1000.00', '2026-01-01T09:00:00.000Z', 'a'), credit('20.00', '2026-01-01T09:01:00.000Z', 'b')],
        '1020.00',
        payBefore,
      ),
    ).toBeNull();
  });

  it('a payment received at or after payBefore does not count', () => {
    expect(fundingCredit([credit('1020.00', '2026-01-01T10:00:00.000Z')], '1020.00', payBefore)).toBeNull();
    expect(fundingCredit([credit('1020.00', '2026-01-01T09:59:59.999Z')], '1020.00', payBefore)).not.toBeNull();
  });

  it('the earliest covering payment in time wins', () => {
    const credits = [
      credit('1500.00', '2026-01-01T09:30:00.000Z', 'late'),
      credit('10.00', '2026-01-01T09:00:00.000Z', 'short'),
      credit('1020.00', '2026-01-01T09:10:00.000Z', 'first'),
    ];
    expect(fundingCredit(credits, '1020.00', payBefore)?.bankTransactionId).toBe('first');
  });
});

describe('nextPaymentCheck', () => {
  it('polls after the interval but never past payBefore', () => {
    expect(nextPaymentCheck(new Date('2026-01-01T09:00:00.000Z'), 1000, payBefore).toISOString()).toBe(
      '2026-01-01T09:00:01.000Z',
    );
    expect(nextPaymentCheck(new Date('2026-01-01T09:59:59.900Z'), 1000, payBefore).toISOString()).toBe(
      payBefore.toISOString(),
    );
  });
});
