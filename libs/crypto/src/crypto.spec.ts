// Pins both signing schemes to independently computed values (openssl-equivalent
// HMACs). Sealing is proven in key-ring.spec.ts.
import { createHash, createHmac } from 'node:crypto';
import {
  constantTimeEqual,
  dammCheckDigit,
  randomNumericCode,
  requestSigningString,
  signRequest,
  verifyWebhookSignature,
  webhookSignatureHeader,
} from './index';

describe('request signing', () => {
  it('signs the six-line string of the contract', () => {
    const parts = {
      timestampMs: '1700000000000',
      nonce: 'abcdefghijklmnop',
      method: 'post',
      pathAndQuery: '/v1/quotes',
      body: '{"side":"buy"}',
    };
    const bodyHash = createHash('sha256').update('{"side":"buy"}').digest('hex');
    const expectedString = `v1\n1700000000000\nabcdefghijklmnop\nPOST\n/v1/quotes\n${bodyHash}`;
    expect(requestSigningString(parts)).toBe(expectedString);
    expect(signRequest('secret', parts)).toBe(
      `v1=${createHmac('sha256', 'secret').update(expectedString).digest('hex')}`,
    );
  });

  it('hashes the empty string when there is no body', () => {
    expect(
      requestSigningString({ timestampMs: '1', nonce: 'n', method: 'GET', pathAndQuery: '/v1/health', body: '' }).split(
        '\n',
      )[5],
    ).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('webhook signatures', () => {
  it('signs timestamp.delivery.body and verifies either rotated secret', () => {
    const header = webhookSignatureHeader(['old', 'new'], '1700000000000', 'd-1', '{"a":1}');
    expect(header.split(',')).toHaveLength(2);
    const expected = createHmac('sha256', 'new').update('1700000000000.d-1.{"a":1}').digest('hex');
    expect(header).toContain(`v1=${expected}`);
    expect(verifyWebhookSignature('new', header, '1700000000000', 'd-1', '{"a":1}')).toBe(true);
    expect(verifyWebhookSignature('old', header, '1700000000000', 'd-1', '{"a":1}')).toBe(true);
    expect(verifyWebhookSignature('other', header, '1700000000000', 'd-1', '{"a":1}')).toBe(false);
    expect(verifyWebhookSignature('new', header, '1700000000001', 'd-1', '{"a":1}')).toBe(false);
  });
});

describe('helpers', () => {
  it('compares in constant time and handles different lengths', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });

  it('makes six-digit codes with leading zeros kept', () => {
    for (let i = 0; i < 200; i += 1) expect(randomNumericCode()).toMatch(/^\d{6}$/);
  });
});

describe('dammCheckDigit', () => {
  it('gives the published check digit and 0 over a whole reference', () => {
    // The textbook example: 572 → check digit 4.
    expect(dammCheckDigit('572')).toBe(4);
    expect(dammCheckDigit('5724')).toBe(0);
  });

  it('catches every single-digit error and every adjacent transposition of a reference', () => {
    const reference = `4815162342${dammCheckDigit('4815162342')}`;
    for (let i = 0; i < reference.length; i += 1) {
      for (let digit = 0; digit <= 9; digit += 1) {
        if (String(digit) === reference[i]) continue;
        expect(dammCheckDigit(reference.slice(0, i) + digit + reference.slice(i + 1))).not.toBe(0);
      }
      if (i + 1 < reference.length && reference[i] !== reference[i + 1]) {
        expect(
          dammCheckDigit(reference.slice(0, i) + reference[i + 1] + reference[i] + reference.slice(i + 2)),
        ).not.toBe(0);
      }
    }
  });

  it('refuses anything but decimal digits', () => {
    expect(() => dammCheckDigit('12a')).toThrow();
  });
});
