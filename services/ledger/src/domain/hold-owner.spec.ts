// Proves the hold owner's shape and that its service part must be the caller's own identity.
import { isOwnerOf, ownerPrefix } from './hold-owner';

const ID = '3f1c2b9e-8a47-4d2e-9b1a-6c5d4e3f2a10';

describe('isOwnerOf', () => {
  it('accepts "<service>:<kind>:<id>" naming the caller', () => {
    expect(isOwnerOf(`payouts:transfer:${ID}`, 'payouts')).toBe(true);
    expect(isOwnerOf(`trading:order:${ID}`, 'trading')).toBe(true);
    expect(isOwnerOf(`wallet-registry:usdt_send:${ID}`, 'wallet-registry')).toBe(true);
  });

  it("refuses another service's owner, and any owner without a known caller", () => {
    expect(isOwnerOf(`payouts:transfer:${ID}`, 'trading')).toBe(false);
    expect(isOwnerOf(`payouts:transfer:${ID}`, null)).toBe(false);
    expect(isOwnerOf(`payouts-x:transfer:${ID}`, 'payouts')).toBe(false);
  });

  it('refuses malformed owners', () => {
    for (const owner of [
      '',
      'payouts',
      'payouts:transfer',
      'payouts:transfer:',
      `payouts::${ID}`,
      `Payouts:transfer:${ID}`,
      `payouts:Transfer:${ID}`,
      `payouts:transfer:${ID}:x`,
      `payouts:transfer:${'a'.repeat(65)}`,
      `payouts:${'k'.repeat(33)}:${ID}`,
      `payouts:transfer:${ID} `,
      `payouts:transfer:a_b`,
    ]) {
      expect({ owner, accepted: isOwnerOf(owner, 'payouts') }).toEqual({ owner, accepted: false });
    }
  });
});

describe('ownerPrefix', () => {
  it('is the service and a colon, so "payouts" never matches "payouts-x"', () => {
    expect(ownerPrefix('payouts')).toBe('payouts:');
  });
});
