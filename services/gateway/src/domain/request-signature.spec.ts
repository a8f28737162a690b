// Proves the request verifier (the six-line signed string): a correctly
// signed request passes; every failure reason is detected (missing, malformed,
// stale or future timestamp, malformed nonce or signature, unknown or revoked
// key, bad signature, tampered method, path, query or body); every path,
// failing or not, computes exactly one HMAC and one constant-time comparison;
// and the string it verifies is byte for byte the one @platform/crypto signs.
import type { KeyObject } from 'node:crypto';
import {
  constantTimeEqual,
  hmacSha256Hex,
  requestSigningString,
  RequestSigningParts,
  signedRequestHeaders,
} from '@platform/crypto';
import { apiKeyPattern, generateApiKey, generateSigningSecret } from './credential-tokens';
import {
  AuthHeaders,
  checkHeaderShapes,
  NONCE_CLOCK_SKEW_MARGIN_MS,
  NONCE_RETENTION_MS,
  readAuthHeaders,
  SignatureCheck,
  signingKeyOf,
  signingStringOf,
  verifySignature,
} from './request-signature';

const pattern = apiKeyPattern('sandbox');
const apiKey = generateApiKey('sandbox');
const signingSecret = generateSigningSecret();
const signingKey = signingKeyOf(signingSecret);
const nowMs = 1_760_000_000_000;
const body = Buffer.from('{"side":"buy","kesAmount":"1000.00"}');
const pathAndQuery = '/v1/quotes?x=1';

function signed(overrides: { nowMs?: number; nonce?: string; secret?: string } = {}): AuthHeaders {
  const headers = signedRequestHeaders(
    { apiKey, signingSecret: overrides.secret ?? signingSecret },
    {
      method: 'POST',
      pathAndQuery,
      body: body.toString(),
      nowMs: overrides.nowMs ?? nowMs,
      nonce: overrides.nonce ?? 'nonce-0123456789abcdef',
    },
  );
  return readAuthHeaders((name) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]);
}

function check(headers: AuthHeaders, overrides: Partial<SignatureCheck> = {}): SignatureCheck {
  return {
    headers,
    shapeFailure: checkHeaderShapes(headers, pattern, nowMs),
    credential: { signingKey, status: 'active' },
    method: 'POST',
    pathAndQuery,
    body,
    ...overrides,
  };
}

function countingCrypto() {
  const calls = { hmac: 0, compare: 0, secrets: [] as string[] };
  return {
    calls,
    crypto: {
      hmacSha256Hex: (key: KeyObject, data: string) => {
        const secret = key.export().toString('utf8');
        calls.hmac += 1;
        calls.secrets.push(secret);
        return hmacSha256Hex(secret, data);
      },
      constantTimeEqual: (a: string, b: string) => {
        calls.compare += 1;
        return constantTimeEqual(a, b);
      },
    },
  };
}

describe('verifySignature', () => {
  it('accepts a correctly signed request', () => {
    expect(verifySignature(check(signed()))).toBeNull();
  });

  it('accepts timestamps at the edge of the tolerance, either way', () => {
    expect(verifySignature(check(signed({ nowMs: nowMs - 300_000 })))).toBeNull();
    expect(verifySignature(check(signed({ nowMs: nowMs + 300_000 })))).toBeNull();
  });

  it.each([
    ['apiKey', 'missing_header'],
    ['timestampMs', 'missing_header'],
    ['nonce', 'missing_header'],
    ['signature', 'missing_header'],
  ] as const)('refuses a request without %s', (header, reason) => {
    const headers = { ...signed(), [header]: undefined };
    expect(verifySignature(check(headers))).toBe(reason);
  });

  it.each([
    ['a malformed key', { apiKey: 'sk_sandbox_abc' }, 'malformed_api_key'],
    ['a live key on a sandbox deployment', { apiKey: generateApiKey('live') }, 'malformed_api_key'],
    ['a non-decimal timestamp', { timestampMs: '1.7e12' }, 'malformed_timestamp'],
    ['a negative timestamp', { timestampMs: '-1' }, 'malformed_timestamp'],
    ['a too short nonce', { nonce: 'short' }, 'malformed_nonce'],
    ['a nonce with unsafe characters', { nonce: 'nonce with spaces!!' }, 'malformed_nonce'],
    ['an upper-case signature', { signature: `v1=${'A'.repeat(64)}` }, 'malformed_signature'],
    ['a signature of another version', { signature: `v2=${'a'.repeat(64)}` }, 'malformed_signature'],
    ['two signatures', { signature: `v1=${'a'.repeat(64)},v1=${'b'.repeat(64)}` }, 'malformed_signature'],
  ])('refuses %s', (_what, override, reason) => {
    expect(verifySignature(check({ ...signed(), ...override }))).toBe(reason);
  });

  it('refuses stale and future timestamps beyond 300 000 ms', () => {
    expect(verifySignature(check(signed({ nowMs: nowMs - 300_001 })))).toBe('stale_timestamp');
    expect(verifySignature(check(signed({ nowMs: nowMs + 300_001 })))).toBe('stale_timestamp');
  });

  it('refuses an unknown key and a revoked credential', () => {
    expect(verifySignature(check(signed(), { credential: null }))).toBe('unknown_api_key');
    expect(verifySignature(check(signed(), { credential: { signingKey, status: 'revoked' } }))).toBe(
      'revoked_credential',
    );
  });

  it('refuses a signature made with another secret', () => {
    expect(verifySignature(check(signed({ secret: generateSigningSecret() })))).toBe('bad_signature');
  });

  it.each([
    ['method', { method: 'PUT' }],
    ['path', { pathAndQuery: '/v1/quotes?x=2' }],
    ['query order', { pathAndQuery: '/v1/quotes?x=1&' }],
    ['body', { body: Buffer.from('{"side":"sell","kesAmount":"1000.00"}') }],
    ['empty body', { body: Buffer.alloc(0) }],
  ])('refuses a request whose %s differs from what was signed', (_what, override) => {
    expect(verifySignature(check(signed(), override))).toBe('bad_signature');
  });

  it('computes exactly one HMAC and one constant-time comparison whatever fails', () => {
    const cases: SignatureCheck[] = [
      check(signed()),
      check({}),
      check({ ...signed(), nonce: 'short' }),
      check(signed({ nowMs: nowMs - 400_000 })),
      check(signed(), { credential: null }),
      check(signed(), { credential: { signingKey, status: 'revoked' } }),
      check(signed({ secret: generateSigningSecret() })),
    ];
    for (const item of cases) {
      const { calls, crypto } = countingCrypto();
      verifySignature(item, crypto);
      expect(calls).toMatchObject({ hmac: 1, compare: 1 });
    }
  });

  it('signs with a dummy secret, never the real one, when the credential is not usable', () => {
    for (const item of [
      check(signed(), { credential: { signingKey, status: 'revoked' } }),
      check({ ...signed(), nonce: 'short' }),
    ]) {
      const { calls, crypto } = countingCrypto();
      verifySignature(item, crypto);
      expect(calls.secrets).toHaveLength(1);
      expect(calls.secrets[0]).not.toBe(signingSecret);
    }
  });
});

describe('signingStringOf', () => {
  it.each<[string, RequestSigningParts & { body: Buffer }]>([
    [
      'a GET without a body',
      { timestampMs: '1', nonce: 'n', method: 'GET', pathAndQuery: '/v1/health', body: Buffer.alloc(0) },
    ],
    [
      'a POST with a JSON body',
      { timestampMs: String(nowMs), nonce: 'nonce-0123456789abcdef', method: 'POST', pathAndQuery, body },
    ],
    [
      'a lower-case method and a query',
      { timestampMs: '7', nonce: 'x', method: 'patch', pathAndQuery: '/v1/a?b=c&d', body: Buffer.from('é') },
    ],
  ])('writes what @platform/crypto signs, for %s', (_what, parts) => {
    expect(signingStringOf(parts)).toBe(requestSigningString(parts));
  });
});

describe('NONCE_RETENTION_MS', () => {
  // The clock readings at which one stamped request is fresh, found by asking the verifier itself.
  const isFreshAt = (clockMs: number) => checkHeaderShapes(signed(), pattern, clockMs) === null;
  function freshEdge(from: number, step: number): number {
    let clockMs = from;
    while (isFreshAt(clockMs + step)) clockMs += step;
    return clockMs;
  }

  it('outlasts every clock reading at which any replica, skewed by up to the margin, finds the request fresh', () => {
    const earliestMs = freshEdge(nowMs, -1_000);
    const latestMs = freshEdge(nowMs, 1_000);
    expect(isFreshAt(earliestMs - 1_000)).toBe(false);
    expect(isFreshAt(latestMs + 1_000)).toBe(false);
    // First claimed at the earliest reading on a replica whose clock runs behind by the margin; replayed at the latest on one running ahead.
    expect(latestMs - earliestMs + NONCE_CLOCK_SKEW_MARGIN_MS).toBeLessThanOrEqual(NONCE_RETENTION_MS);
  });
});

describe('readAuthHeaders', () => {
  it('ignores repeated headers (arrays)', () => {
    const headers = readAuthHeaders((name) => (name === 'x-service-key' ? [apiKey, apiKey] : 'x'));
    expect(headers.apiKey).toBeUndefined();
    expect(headers.nonce).toBe('x');
  });
});
