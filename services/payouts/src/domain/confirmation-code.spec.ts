// Proves the confirmation code rules: 6 random digits stored only as a keyed
// hash bound to the confirmation and its issue (a resent code replaces the
// old), the refusal order (used, locked, expired), and the resend ladder
// (cooldown with retryAfterSeconds rounded up, then the limit after four).
import {
  codeMatches,
  Confirmation,
  decideResend,
  generateCode,
  hashCode,
  refusalBeforeAttempt,
  resendCooldownMs,
} from './confirmation-code';

const KEY = 'ab'.repeat(32);
const now = new Date('2026-11-21T12:00:00.000Z');

function confirmation(overrides: Partial<Confirmation> = {}): Confirmation {
  return {
    confirmationId: '11111111-1111-4111-8111-111111111111',
    partnerId: 'p',
    subjectType: 'transfer',
    subjectId: 's',
    codeHash: hashCode(KEY, '11111111-1111-4111-8111-111111111111', 0, '123456'),
    deliveredTo: 'j***@example.com',
    status: 'live',
    attempts: 0,
    resends: 0,
    codeIssue: 0,
    lastIssue: 0,
    expiresAt: new Date(now.getTime() + 60_000),
    resendAvailableAt: new Date(now.getTime() + 30_000),
    createdAt: now,
    verifiedAt: null,
    ...overrides,
  };
}

describe('confirmation codes', () => {
  it('generates 6 digits and matches only the right code of the current issue', () => {
    expect(generateCode()).toMatch(/^\d{6}$/);
    expect(codeMatches(KEY, confirmation(), '123456')).toBe(true);
    expect(codeMatches(KEY, confirmation(), '123457')).toBe(false);
    expect(codeMatches(KEY, confirmation({ codeIssue: 1, lastIssue: 1 }), '123456')).toBe(false);
  });

  it('refuses used, locked and expired confirmations in that order', () => {
    expect(refusalBeforeAttempt(confirmation(), now)).toBeNull();
    expect(refusalBeforeAttempt(confirmation({ status: 'used' }), now)).toBe('CONFIRMATION_ALREADY_USED');
    expect(refusalBeforeAttempt(confirmation({ status: 'locked' }), now)).toBe('CONFIRMATION_LOCKED');
    expect(refusalBeforeAttempt(confirmation({ expiresAt: now }), now)).toBe('CONFIRMATION_EXPIRED');
  });

  it('follows the ladder 30, 60, 120, 300 s (scaled) and then the limit', () => {
    expect([0, 1, 2, 3].map((issue) => resendCooldownMs(issue, 1))).toEqual([30_000, 60_000, 120_000, 300_000]);
    expect(resendCooldownMs(0, 0.05)).toBe(1_500);
    expect(decideResend(confirmation(), now)).toEqual({
      refusal: 'CONFIRMATION_RESEND_COOLDOWN',
      retryAfterSeconds: 30,
    });
    expect(decideResend(confirmation({ resendAvailableAt: new Date(now.getTime() + 1_001) }), now)).toEqual({
      refusal: 'CONFIRMATION_RESEND_COOLDOWN',
      retryAfterSeconds: 2,
    });
    expect(decideResend(confirmation({ resendAvailableAt: now }), now)).toEqual({ refusal: null });
    expect(decideResend(confirmation({ resends: 4, resendAvailableAt: now }), now)).toEqual({
      refusal: 'CONFIRMATION_RESEND_LIMIT',
    });
    expect(decideResend(confirmation({ status: 'locked' }), now)).toEqual({ refusal: 'CONFIRMATION_LOCKED' });
  });
});
