// Proves issuing a credential's scopes normalises them and refuses unknown ones.
// (Which scope each operation needs is the operation table's: libs/openapi/src/operations.spec.ts.)
import { AppError } from '@platform/errors';
import { parseScopes, SCOPES } from './scopes';

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
