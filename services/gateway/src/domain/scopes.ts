/**
 * Credential scopes (contract decisions section 1). A credential carries all of
 * them unless the operator narrows it at issue. Which scope a route needs is
 * decided here, by one rule table, so a new route cannot be registered without
 * one (the router asserts it at start).
 */
import { validationFailed } from '@platform/errors';

export const SCOPES = ['read', 'trade', 'payouts', 'wallets', 'funding', 'collections', 'sandbox'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** The scopes of a credential being issued: empty means all; unknown ones are refused. Canonical order, no repeats. */
export function parseScopes(requested: readonly string[]): Scope[] {
  if (requested.length === 0) return [...SCOPES];
  if (!requested.every(isScope)) throw validationFailed(['scopes']);
  return SCOPES.filter((scope) => requested.includes(scope));
}

// Path prefixes (route paths as registered, under /v1) and the scope their
// non-GET operations need. The first match wins.
const WRITE_SCOPE_BY_PREFIX: ReadonlyArray<readonly [string, Scope]> = [
  ['/v1/quotes', 'trade'],
  ['/v1/orders', 'trade'],
  ['/v1/transfers', 'payouts'],
  ['/v1/usdt/sends', 'payouts'],
  ['/v1/confirmations', 'payouts'],
  ['/v1/wallets', 'wallets'],
  ['/v1/admins', 'wallets'],
  ['/v1/funding', 'funding'],
  ['/v1/collections', 'collections'],
];

function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The scope a route needs, or null when no rule covers it (a programming error
 * at registration). The sandbox helpers need `sandbox` whatever their method;
 * every other GET needs `read`.
 */
export function requiredScope(method: string, routePath: string): Scope | null {
  if (underPrefix(routePath, '/v1/sandbox')) return 'sandbox';
  if (method.toUpperCase() === 'GET') return 'read';
  const rule = WRITE_SCOPE_BY_PREFIX.find(([prefix]) => underPrefix(routePath, prefix));
  return rule ? rule[1] : null;
}
