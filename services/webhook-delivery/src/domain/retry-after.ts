/**
 * Parses an HTTP Retry-After header (RFC 9110 section 10.2.3): either a
 * number of seconds or an HTTP date. Returns the wait in milliseconds from
 * `nowMs` (0 for a date in the past), or null when the header is absent or
 * not one of those two forms: a malformed header is ignored, never trusted.
 */
const DELAY_SECONDS = /^\d{1,10}$/;
// IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT")
// and asctime ("Sun Nov  6 08:49:37 1994"): the three forms a recipient must accept.
const HTTP_DATE = /^[A-Za-z]{3,9},? [0-9A-Za-z :-]{10,30}$/;
const HEADER_LENGTH_MAX = 64;

export function parseRetryAfterMs(header: string | undefined, nowMs: number): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (value === '' || value.length > HEADER_LENGTH_MAX) return null;
  if (DELAY_SECONDS.test(value)) return Number(value) * 1000;
  if (!HTTP_DATE.test(value)) return null;
  // asctime carries no zone; HTTP dates are always GMT, never the server's local time.
  const atMs = Date.parse(/GMT$/.test(value) ? value : `${value} GMT`);
  if (!Number.isFinite(atMs)) return null;
  return Math.max(0, atMs - nowMs);
}
