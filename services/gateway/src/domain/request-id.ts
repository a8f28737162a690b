/**
 * Request ids: a partner's X-Request-Id
 * is kept when it is 1..64 safe characters, so partners can correlate; anything
 * else (absent, too long, repeated header, unsafe characters) is replaced by a
 * fresh UUID, so a request id can never inject into logs or headers.
 */
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export function resolveRequestId(incoming: string | string[] | undefined, makeId: () => string = randomUUID): string {
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : makeId();
}
