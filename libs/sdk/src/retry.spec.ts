/**
 * Proves the retry policy: 429 always (within the Retry-After cap), retry-safe
 * 503s and network failures only for idempotent or keyed requests, never for
 * an unsafe create; backoff exponential and capped; Retry-After honoured.
 */
import { backoffMs, DEFAULT_RETRY_OPTIONS, nextRetryDelayMs, retrySafetyOf } from './retry';

const options = {
  ...DEFAULT_RETRY_OPTIONS,
  attemptsMax: 5,
  baseDelayMs: 100,
  delayMsMax: 1_000,
  retryAfterMsMax: 10_000,
};
const noJitter = () => 1;

describe('retry policy', () => {
  it('derives safety from the method and the body key', () => {
    expect(retrySafetyOf('GET', undefined)).toBe('idempotent');
    expect(retrySafetyOf('DELETE', undefined)).toBe('idempotent');
    expect(retrySafetyOf('POST', { idempotencyKey: 'k-1' })).toBe('keyed');
    expect(retrySafetyOf('POST', { partnerReference: 'ref-1' })).toBe('keyed');
    expect(retrySafetyOf('POST', { partnerReference: '' })).toBe('unsafe');
    expect(retrySafetyOf('POST', { phone: '254700000001', amount: '10.00' })).toBe('unsafe');
  });

  it('backs off exponentially up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffMs(attempt, options, noJitter))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(backoffMs(3, options, () => 0)).toBe(200);
  });

  it('retries a 429 for any request, waiting at least Retry-After', () => {
    expect(
      nextRetryDelayMs(
        { kind: 'response', status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 3 },
        'unsafe',
        1,
        options,
        noJitter,
      ),
    ).toBe(3_000);
    expect(
      nextRetryDelayMs({ kind: 'response', status: 429, code: 'RATE_LIMITED' }, 'unsafe', 2, options, noJitter),
    ).toBe(200);
  });

  it('hands a wait longer than the cap to the caller', () => {
    expect(
      nextRetryDelayMs(
        { kind: 'response', status: 429, code: 'CONFIRMATION_RESEND_COOLDOWN', retryAfterSeconds: 60 },
        'idempotent',
        1,
        options,
      ),
    ).toBeNull();
  });

  it('retries retry-safe 503s only when repeating cannot act twice', () => {
    const busy = { kind: 'response' as const, status: 503, code: 'SERVICE_UNAVAILABLE' };
    expect(nextRetryDelayMs(busy, 'idempotent', 1, options, noJitter)).toBe(100);
    expect(nextRetryDelayMs(busy, 'keyed', 1, options, noJitter)).toBe(100);
    expect(nextRetryDelayMs(busy, 'unsafe', 1, options, noJitter)).toBeNull();
    expect(nextRetryDelayMs({ kind: 'network' }, 'keyed', 1, options, noJitter)).toBe(100);
    expect(nextRetryDelayMs({ kind: 'network' }, 'unsafe', 1, options, noJitter)).toBeNull();
  });

  it('never retries 503s that need a person, nor 4xx answers', () => {
    for (const code of [
      'KILL_SWITCH_ENGAGED',
      'KES_DEBIT_FAILED',
      'KES_DEBIT_AMBIGUOUS',
      'MOBILE_MONEY_PUSH_UNAVAILABLE',
      'SWAPS_DISABLED',
    ]) {
      expect(nextRetryDelayMs({ kind: 'response', status: 503, code }, 'keyed', 1, options)).toBeNull();
    }
    expect(
      nextRetryDelayMs({ kind: 'response', status: 409, code: 'QUOTE_EXPIRED_OR_CONSUMED' }, 'idempotent', 1, options),
    ).toBeNull();
    expect(
      nextRetryDelayMs({ kind: 'response', status: 400, code: 'VALIDATION_FAILED' }, 'idempotent', 1, options),
    ).toBeNull();
  });

  it('stops after attemptsMax attempts', () => {
    expect(
      nextRetryDelayMs({ kind: 'response', status: 429, code: 'RATE_LIMITED' }, 'idempotent', 5, options),
    ).toBeNull();
  });
});
