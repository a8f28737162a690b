/**
 * The gateway's `res.json`: every answer is a small JSON object, so it is
 * serialised once and written with its length in one `end`, without the
 * general-purpose path of Express's `send` (charset negotiation, ETag and
 * freshness machinery, which this app turns off anyway). Same bytes and headers:
 * `Content-Type: application/json; charset=utf-8` and `Content-Length`. Node
 * itself drops the body of an answer to HEAD, and of a 204 or 304.
 */
import type { Response } from 'express';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(this: Response, body: unknown): Response {
  const text = JSON.stringify(body) ?? '';
  if (this.statusCode === 204 || this.statusCode === 304) {
    this.end();
    return this;
  }
  this.setHeader('Content-Type', JSON_CONTENT_TYPE);
  this.setHeader('Content-Length', Buffer.byteLength(text, 'utf8'));
  this.end(text, 'utf8');
  return this;
}
