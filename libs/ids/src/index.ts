/**
 * The platform's id format, stated once. Every id a service mints is a UUID
 * written in canonical lowercase form (PostgreSQL's `uuid` output and
 * `crypto.randomUUID()` both give it), and every id a partner or a peer sends
 * is checked against the same pattern: anything else names nothing, so a
 * caller answers its own 404 or 400 without asking the database. Uppercase is
 * refused on purpose: an id is compared as text in keys, cursors and logs, and
 * two spellings of one id would be two ids there. Any version and variant is
 * accepted; only the shape is checked.
 *
 * This module imports nothing, so a service, the ops tool or a test loads it
 * without zod or the contract.
 */

/** Length of a UUID in canonical form: 32 hex digits and 4 hyphens. */
export const UUID_LENGTH = 36;

/** A whole string that is a lowercase canonical UUID (no `g` flag: `test` keeps no state). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a string that is a lowercase canonical UUID; false for anything else, including a non-string. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}
