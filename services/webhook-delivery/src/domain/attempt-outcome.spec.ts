// Proves how one attempt's result is judged: any 2xx delivers, 3xx is a
// `redirect` failure, other statuses `http_status`; transport errors map to
// their class; and what the delivery becomes next (delivered, retry with the
// schedule or a longer Retry-After on 429/503, dead after the 7th attempt).
import { AttemptResult, classifyNetworkErrorCode, classifyStatusCode, nextDeliveryState } from './attempt-outcome';

const response = (statusCode: number, retryAfter?: string): AttemptResult => ({
  kind: 'response',
  statusCode,
  retryAfter,
  responseExcerpt: '',
  latencyMs: 5,
});
const middle = () => 0.5;
const nowMs = Date.parse('2026-01-01T00:00:00.000Z');

describe('classifyStatusCode', () => {
  it.each([200, 201, 202, 204, 299])('%i delivers', (status) => expect(classifyStatusCode(status)).toBeNull());
  it.each([300, 301, 302, 303, 307, 308])('%i is a redirect failure', (status) =>
    expect(classifyStatusCode(status)).toBe('redirect'),
  );
  it.each([100, 101, 199, 400, 401, 404, 410, 429, 500, 502, 503, 504])('%i is an http_status failure', (status) =>
    expect(classifyStatusCode(status)).toBe('http_status'),
  );
});

describe('classifyNetworkErrorCode', () => {
  it.each([
    ['ECONNREFUSED', 'connection'],
    ['ECONNRESET', 'connection'],
    ['EHOSTUNREACH', 'connection'],
    [undefined, 'connection'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['HPE_INVALID_CONSTANT', 'protocol'],
  ])('%s is %s', (code, expected) => expect(classifyNetworkErrorCode(code)).toBe(expected));
});

describe('nextDeliveryState', () => {
  it('delivers on 2xx, whatever the attempt', () => {
    expect(nextDeliveryState({ attemptNumber: 7, result: response(204), nowMs, timeScale: 1, random: middle })).toEqual(
      { status: 'delivered' },
    );
  });

  it('schedules a retry after a failure', () => {
    expect(nextDeliveryState({ attemptNumber: 1, result: response(500), nowMs, timeScale: 1, random: middle })).toEqual(
      { status: 'pending', delayMs: 30_000 },
    );
    const timeout: AttemptResult = { kind: 'failure', errorClass: 'timeout', detail: '', latencyMs: 10_000 };
    expect(nextDeliveryState({ attemptNumber: 2, result: timeout, nowMs, timeScale: 0.05, random: middle })).toEqual({
      status: 'pending',
      delayMs: 3_000,
    });
  });

  it('treats a redirect as a failure, not a delivery', () => {
    expect(
      nextDeliveryState({ attemptNumber: 1, result: response(302), nowMs, timeScale: 1, random: middle }).status,
    ).toBe('pending');
  });

  it('is dead after the 7th failed attempt', () => {
    expect(nextDeliveryState({ attemptNumber: 7, result: response(500), nowMs, timeScale: 1, random: middle })).toEqual(
      { status: 'dead' },
    );
  });

  it('honours a longer Retry-After on 429 and 503 only', () => {
    expect(
      nextDeliveryState({ attemptNumber: 1, result: response(429, '120'), nowMs, timeScale: 1, random: middle }),
    ).toEqual({ status: 'pending', delayMs: 120_000 });
    expect(
      nextDeliveryState({
        attemptNumber: 1,
        result: response(503, 'Thu, 01 Jan 2026 00:05:00 GMT'),
        nowMs,
        timeScale: 1,
        random: middle,
      }),
    ).toEqual({ status: 'pending', delayMs: 300_000 });
    expect(
      nextDeliveryState({ attemptNumber: 1, result: response(500, '120'), nowMs, timeScale: 1, random: middle }),
    ).toEqual({ status: 'pending', delayMs: 30_000 });
    expect(
      nextDeliveryState({ attemptNumber: 1, result: response(429, '99999'), nowMs, timeScale: 1, random: middle }),
    ).toEqual({ status: 'pending', delayMs: 900_000 });
  });

  it('does not let Retry-After revive a delivery after its last attempt', () => {
    expect(
      nextDeliveryState({ attemptNumber: 7, result: response(503, '60'), nowMs, timeScale: 1, random: middle }),
    ).toEqual({ status: 'dead' });
  });
});
