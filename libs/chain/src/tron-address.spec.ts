// Proves address generation round-trips through validation and that the
// checksum and version byte are enforced, against a known mainnet address.
import { createHash, randomBytes } from 'node:crypto';
import { base58Encode, isValidTronAddress, tronAddressFromAccountId } from './tron-address';

// The USDT (TRC-20) contract address on TRON mainnet: a well-known valid address.
const KNOWN_VALID = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

describe('TRON addresses', () => {
  it('accepts a known mainnet address', () => {
    expect(isValidTronAddress(KNOWN_VALID)).toBe(true);
  });

  it('generates valid 34-character T addresses', () => {
    for (let i = 0; i < 50; i += 1) {
      const address = tronAddressFromAccountId(randomBytes(20));
      expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      expect(isValidTronAddress(address)).toBe(true);
    }
  });

  it('refuses a changed character, bad length, bad alphabet', () => {
    const flipped = KNOWN_VALID.slice(0, 10) + (KNOWN_VALID[10] === 'a' ? 'b' : 'a') + KNOWN_VALID.slice(11);
    expect(isValidTronAddress(flipped)).toBe(false);
    expect(isValidTronAddress(KNOWN_VALID.slice(0, 33))).toBe(false);
    expect(isValidTronAddress(`${KNOWN_VALID.slice(0, 33)}0`)).toBe(false);
    expect(isValidTronAddress(`A${KNOWN_VALID.slice(1)}`)).toBe(false);
  });

  it('refuses a well-formed base58check payload under another version byte', () => {
    const payload = Buffer.concat([Buffer.from([0x42]), randomBytes(20)]);
    const checksum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest().subarray(0, 4);
    expect(isValidTronAddress(base58Encode(Buffer.concat([payload, checksum])))).toBe(false);
  });

  it('refuses empty, padded and look-alike input', () => {
    for (const candidate of [
      '',
      ` ${KNOWN_VALID}`,
      `${KNOWN_VALID} `,
      KNOWN_VALID.toLowerCase(),
      KNOWN_VALID.replace('q', 'O'),
    ]) {
      expect(isValidTronAddress(candidate)).toBe(false);
    }
  });
});
