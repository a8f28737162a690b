// Proves the signing-secret rules: length and characters, the rotation overlap
// bounds, rotation keeping the old secret for the overlap, and which secrets
// sign at a given moment.
import { AppError } from '@platform/errors';
import { isValidSigningSecret, rotateSecrets, rotationOverlapSeconds, signingSecrets } from './endpoint-secrets';

const nowMs = Date.parse('2026-01-01T00:00:00.000Z');

describe('isValidSigningSecret', () => {
  it('accepts 16 to 256 printable characters', () => {
    expect(isValidSigningSecret('a'.repeat(16))).toBe(true);
    expect(isValidSigningSecret('whsec_AbC-123.~!'.padEnd(256, 'x'))).toBe(true);
  });

  it.each([
    ['too short', 'a'.repeat(15)],
    ['too long', 'a'.repeat(257)],
    ['with a space', 'abcdefgh ijklmnop'],
    ['with a newline', 'abcdefghijklmnop\n'],
    ['non-ASCII', 'abcdefghijklmnopé'],
  ])('refuses one %s', (_, secret) => expect(isValidSigningSecret(secret)).toBe(false));
});

describe('rotationOverlapSeconds', () => {
  it('defaults 0 to 24 hours and keeps a valid value', () => {
    expect(rotationOverlapSeconds(0)).toBe(86_400);
    expect(rotationOverlapSeconds(60)).toBe(60);
  });

  it('refuses more than 30 days', () => {
    expect(() => rotationOverlapSeconds(30 * 86_400 + 1)).toThrow(AppError);
  });
});

describe('rotateSecrets', () => {
  it('stores the first secret alone', () => {
    expect(rotateSecrets(null, 'new', false, 86_400, nowMs)).toEqual({
      current: 'new',
      previous: null,
      previousExpiresAt: null,
    });
  });

  it('keeps the old secret signing for the overlap when a different one is set', () => {
    const existing = { current: 'old', previous: null, previousExpiresAt: null };
    expect(rotateSecrets(existing, 'new', false, 3_600, nowMs)).toEqual({
      current: 'new',
      previous: 'old',
      previousExpiresAt: new Date(nowMs + 3_600_000),
    });
  });

  it('changes nothing when the same secret is set again', () => {
    const existing = { current: 'same', previous: 'older', previousExpiresAt: new Date(nowMs + 1_000) };
    expect(rotateSecrets(existing, 'same-sealed-again', true, 3_600, nowMs)).toBe(existing);
  });
});

describe('signingSecrets', () => {
  it('signs with the previous secret only while its overlap lasts', () => {
    const stored = { current: 'new', previous: 'old', previousExpiresAt: new Date(nowMs + 1_000) };
    expect(signingSecrets(stored, nowMs)).toEqual(['new', 'old']);
    expect(signingSecrets(stored, nowMs + 1_000)).toEqual(['new']);
    expect(signingSecrets({ current: 'only', previous: null, previousExpiresAt: null }, nowMs)).toEqual(['only']);
  });
});
