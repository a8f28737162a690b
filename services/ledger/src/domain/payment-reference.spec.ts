/** Proves a pay-in order reference is recognised only in its own shape with a valid check digit, and never as an account reference. */
import { dammCheckDigit } from '@platform/crypto';
import { normaliseAccountReference } from './account-reference';
import { normalisePaymentReference } from './payment-reference';

function reference(body: string): string {
  return `${body}${dammCheckDigit(body)}`;
}

describe('normalisePaymentReference', () => {
  const valid = reference('91234567890');

  it('accepts 12 digits starting with 9 whose check digit holds, ignoring spaces and hyphens', () => {
    expect(normalisePaymentReference(valid)).toBe(valid);
    expect(normalisePaymentReference(`${valid.slice(0, 4)} ${valid.slice(4, 8)}-${valid.slice(8)}`)).toBe(valid);
  });

  it('refuses a wrong check digit, another length or leading digit', () => {
    expect(normalisePaymentReference(valid.slice(0, 11) + String((Number(valid[11]) + 1) % 10))).toBeNull();
    expect(normalisePaymentReference(reference('9123456789'))).toBeNull();
    expect(normalisePaymentReference(reference('81234567890'))).toBeNull();
  });

  it('is never an 11-digit account reference, and an account reference is never one', () => {
    expect(normaliseAccountReference(valid)).toBeNull();
    expect(normalisePaymentReference(reference('9123456789'))).toBeNull();
  });
});
