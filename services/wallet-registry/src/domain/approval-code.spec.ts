// Proves the approval-code rules: codes are 6 digits, hashes are keyed and
// bound to the issuance, a cancelled code is locked while an expired or lapsed
// one is expired, and the three re-registration cases (unchanged, the live code again, a fresh code).
import { randomUUID } from 'node:crypto';
import {
  ApprovalCode,
  codeMatches,
  decideReRegistration,
  generateCode,
  hashCode,
  refusalBeforeAttempt,
} from './approval-code';

const KEY = 'ab'.repeat(32);
const OTHER_KEY = 'cd'.repeat(32);
const now = new Date('2026-11-21T10:00:00.000Z');
const later = new Date('2026-11-21T10:10:00.000Z');

function code(overrides: Partial<ApprovalCode> = {}): ApprovalCode {
  return {
    codeId: randomUUID(),
    walletId: randomUUID(),
    adminId: randomUUID(),
    status: 'live',
    attempts: 0,
    expiresAt: later,
    ...overrides,
  };
}

describe('approval codes', () => {
  it('generates 6-digit codes', () => {
    for (let i = 0; i < 100; i += 1) expect(generateCode()).toMatch(/^\d{6}$/);
  });

  it('hashes under the key and the issuance id', () => {
    const issued = code();
    const hash = hashCode(KEY, issued.codeId, '123456');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toBe(hashCode(OTHER_KEY, issued.codeId, '123456'));
    expect(hash).not.toBe(hashCode(KEY, randomUUID(), '123456'));
    expect(codeMatches(KEY, { ...issued, codeHash: hash }, '123456')).toBe(true);
    expect(codeMatches(KEY, { ...issued, codeHash: hash }, '123457')).toBe(false);
  });

  it('locks a cancelled code and expires lapsed, superseded, expired or missing ones', () => {
    expect(refusalBeforeAttempt(code(), now)).toBeNull();
    expect(refusalBeforeAttempt(code({ status: 'cancelled' }), now)).toBe('WALLET_CODE_LOCKED');
    expect(refusalBeforeAttempt(code({ status: 'lapsed' }), now)).toBe('WALLET_CODE_EXPIRED');
    expect(refusalBeforeAttempt(code({ status: 'superseded' }), now)).toBe('WALLET_CODE_EXPIRED');
    expect(refusalBeforeAttempt(code({ expiresAt: now }), now)).toBe('WALLET_CODE_EXPIRED');
    expect(refusalBeforeAttempt(null, now)).toBe('WALLET_CODE_EXPIRED');
  });

  it('decides the three re-registration cases', () => {
    expect(decideReRegistration('pending_partner_approval', code(), now)).toBe('return_live_code');
    expect(decideReRegistration('pending_partner_approval', code({ expiresAt: now }), now)).toBe('issue_fresh_code');
    expect(decideReRegistration('pending_partner_approval', code({ status: 'cancelled' }), now)).toBe(
      'issue_fresh_code',
    );
    expect(decideReRegistration('pending_partner_approval', code({ status: 'lapsed' }), now)).toBe('issue_fresh_code');
    expect(decideReRegistration('pending_partner_approval', null, now)).toBe('issue_fresh_code');
    for (const status of ['pending_service_approval', 'active', 'rejected']) {
      expect(decideReRegistration(status, code(), now)).toBe('unchanged');
    }
  });
});
