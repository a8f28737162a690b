/**
 * The part of a partner's response we keep with each attempt, for operators
 * diagnosing a failing endpoint: at most RESPONSE_EXCERPT_BYTES_MAX bytes of
 * valid UTF-8, without NUL characters (PostgreSQL text cannot hold them).
 */
export const RESPONSE_EXCERPT_BYTES_MAX = 512;

export function responseExcerpt(body: Buffer): string {
  let text = body
    .subarray(0, RESPONSE_EXCERPT_BYTES_MAX)
    .toString('utf8')
    .replace(/\u0000/g, '');
  // A multi-byte character cut at the boundary decodes to U+FFFD (3 bytes); trim until it fits.
  while (Buffer.byteLength(text, 'utf8') > RESPONSE_EXCERPT_BYTES_MAX) text = text.slice(0, -1);
  return text;
}
