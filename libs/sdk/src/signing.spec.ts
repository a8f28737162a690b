/**
 * Proves the SDK signs exactly as the gateway verifies: the same headers as
 * @platform/crypto for the same inputs (so the standalone copy cannot drift),
 * a fixed vector computed independently, and the body hash of an empty body.
 */
import { createHash, createHmac } from 'node:crypto';
import { signedRequestHeaders } from '@platform/crypto';
import { signingString, signRequestHeaders } from './signing';

const credentials = { apiKey: 'pk_test_abc', signingSecret: 'secret-value-123' };

describe('request signing', () => {
  it('matches @platform/crypto for bodies, queries and methods', () => {
    const cases = [
      { method: 'GET', pathAndQuery: '/v1/collections?status=open', body: '' },
      { method: 'post', pathAndQuery: '/v1/quotes', body: '{"side":"buy","kesAmount":"1000.00"}' },
      { method: 'PATCH', pathAndQuery: '/v1/orders/abc', body: '{"txHash":"ünïcode"}' },
    ];
    for (const request of cases) {
      const ours = signRequestHeaders(credentials, {
        ...request,
        timestampMs: 1_700_000_000_000,
        nonce: 'nonce_0123456789abcdef',
      });
      const platform = signedRequestHeaders(credentials, {
        ...request,
        nowMs: 1_700_000_000_000,
        nonce: 'nonce_0123456789abcdef',
      });
      expect(ours).toEqual(platform);
    }
  });

  it('signs the six lines of the signing scheme', () => {
    const emptyHash = createHash('sha256').update('').digest('hex');
    expect(signingString('1700000000000', 'n'.repeat(16), 'get', '/v1/health', '')).toBe(
      `v1\n1700000000000\n${'n'.repeat(16)}\nGET\n/v1/health\n${emptyHash}`,
    );
    const headers = signRequestHeaders(credentials, {
      method: 'GET',
      pathAndQuery: '/v1/health',
      body: '',
      timestampMs: 1_700_000_000_000,
      nonce: 'n'.repeat(16),
    });
    const expected = createHmac('sha256', credentials.signingSecret)
      .update(`v1\n1700000000000\n${'n'.repeat(16)}\nGET\n/v1/health\n${emptyHash}`)
      .digest('hex');
    expect(headers['X-Service-Signature']).toBe(`v1=${expected}`);
    expect(headers['X-Service-Key']).toBe('pk_test_abc');
  });

  it('makes a fresh valid nonce for every request', () => {
    const first = signRequestHeaders(credentials, { method: 'GET', pathAndQuery: '/v1/health', body: '' });
    const second = signRequestHeaders(credentials, { method: 'GET', pathAndQuery: '/v1/health', body: '' });
    expect(first['X-Service-Nonce']).toMatch(/^[A-Za-z0-9_-]{16,128}$/);
    expect(first['X-Service-Nonce']).not.toBe(second['X-Service-Nonce']);
  });
});
