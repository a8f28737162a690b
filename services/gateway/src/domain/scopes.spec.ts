// Proves the scope rules of contract decisions section 1: issuing normalises and
// refuses unknown scopes, and each route family maps to the scope it needs.
import { AppError } from '@platform/errors';
import { parseScopes, requiredScope, SCOPES } from './scopes';

describe('parseScopes', () => {
  it('gives every scope for an empty request', () => {
    expect(parseScopes([])).toEqual([...SCOPES]);
  });

  it('dedupes and orders canonically', () => {
    expect(parseScopes(['trade', 'read', 'trade'])).toEqual(['read', 'trade']);
  });

  it.each([['admin'], ['read', 'READ'], [''], ['read', ' trade']])('refuses %p naming scopes', (...requested) => {
    try {
      parseScopes(requested);
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).partnerMessage).toBe('Validation failed on: scopes');
    }
  });
});

describe('requiredScope', () => {
  it.each([
    ['GET', '/v1/health', 'read'],
    ['GET', '/v1/balances', 'read'],
    ['GET', '/v1/orders/:id', 'read'],
    ['POST', '/v1/quotes', 'trade'],
    ['POST', '/v1/orders/buy', 'trade'],
    ['PATCH', '/v1/orders/:id', 'trade'],
    ['POST', '/v1/transfers/batch', 'payouts'],
    ['POST', '/v1/usdt/sends', 'payouts'],
    ['POST', '/v1/confirmations/:id/resend', 'payouts'],
    ['POST', '/v1/wallets', 'wallets'],
    ['DELETE', '/v1/wallets/:id', 'wallets'],
    ['DELETE', '/v1/admins/:id', 'wallets'],
    ['POST', '/v1/funding/mobile-money-push', 'funding'],
    ['POST', '/v1/collections', 'collections'],
    ['POST', '/v1/sandbox/rates', 'sandbox'],
    ['GET', '/v1/sandbox/outbox', 'sandbox'],
  ])('%s %s needs %s', (method, path, scope) => {
    expect(requiredScope(method, path)).toBe(scope);
  });

  it('has no rule for an unknown write and does not match on a bare prefix', () => {
    expect(requiredScope('POST', '/v1/unknown')).toBeNull();
    expect(requiredScope('POST', '/v1/quotesx')).toBeNull();
  });
});
