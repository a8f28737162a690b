/**
 * Credential scopes. A credential carries all of them unless the operator
 * narrows it at issue. Which scope each operation needs is stated once, in the
 * operation table (@platform/openapi), which the router registers routes from.
 */
import { validationFailed } from '@platform/errors';
import { SCOPES, type Scope } from '@platform/openapi/dist/contract/scopes';

export { SCOPES };
export type { Scope };

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** The scopes of a credential being issued: empty means all; unknown ones are refused. Canonical order, no repeats. */
export function parseScopes(requested: readonly string[]): Scope[] {
  if (requested.length === 0) return [...SCOPES];
  if (!requested.every(isScope)) throw validationFailed(['scopes']);
  return SCOPES.filter((scope) => requested.includes(scope));
}
