// Proves an operator's partner create is normalised (trimmed name, default
// limit for 0), refused naming every bad field, and that a repeat is recognised
// only when its body is the same.
import { AppError } from '@platform/errors';
import { parseNewPartner, sameAsCreated } from './partner';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const limits = { rateLimitDefault: 120, rateLimitMax: 100_000 };

function refusal(input: { partnerId: string; name: string; rateLimitPerMinute: number }): string {
  try {
    parseNewPartner(input, limits);
  } catch (error) {
    return (error as AppError).partnerMessage;
  }
  throw new Error('expected a refusal');
}

describe('parseNewPartner', () => {
  it('trims the name and applies the default limit for 0', () => {
    expect(parseNewPartner({ partnerId, name: '  Acme Ltd ', rateLimitPerMinute: 0 }, limits)).toEqual({
      partnerId,
      name: 'Acme Ltd',
      rateLimitPerMinute: 120,
    });
    expect(parseNewPartner({ partnerId, name: 'Acme', rateLimitPerMinute: 5 }, limits).rateLimitPerMinute).toBe(5);
  });

  it('names every bad field', () => {
    expect(refusal({ partnerId: 'nope', name: ' ', rateLimitPerMinute: 100_001 })).toBe(
      'Validation failed on: partnerId, name, rateLimitPerMinute',
    );
    expect(refusal({ partnerId: partnerId.toUpperCase(), name: 'ok', rateLimitPerMinute: 1 })).toBe(
      'Validation failed on: partnerId',
    );
    expect(refusal({ partnerId, name: 'a\nb', rateLimitPerMinute: 1 })).toBe('Validation failed on: name');
    expect(refusal({ partnerId, name: 'x'.repeat(201), rateLimitPerMinute: 1 })).toBe('Validation failed on: name');
  });

  it('throws AppError VALIDATION_FAILED', () => {
    expect(() => parseNewPartner({ partnerId, name: '', rateLimitPerMinute: 1 }, limits)).toThrow(AppError);
  });
});

describe('sameAsCreated', () => {
  const created = { partnerId, name: 'Acme', rateLimitPerMinute: 120 };
  it('compares name and limit', () => {
    expect(sameAsCreated(created, { ...created })).toBe(true);
    expect(sameAsCreated(created, { ...created, name: 'Acme 2' })).toBe(false);
    expect(sameAsCreated(created, { ...created, rateLimitPerMinute: 60 })).toBe(false);
  });
});
