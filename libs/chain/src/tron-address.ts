/**
 * TRON addresses: base58check of the version byte 0x41 followed by a 20-byte
 * account id, with the first four bytes of a double SHA-256 as checksum.
 * Always 34 characters starting with "T".
 */
import { createHash } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const TRON_VERSION_BYTE = 0x41;
export const TRON_ADDRESS_LENGTH = 34;
const ACCOUNT_ID_BYTES = 20;

function doubleSha256(data: Buffer): Buffer {
  return createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
}

export function base58Encode(data: Buffer): string {
  let value = BigInt(`0x${data.toString('hex') || '0'}`);
  let out = '';
  while (value > 0n) {
    out = ALPHABET[Number(value % 58n)] + out;
    value /= 58n;
  }
  for (const byte of data) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

export function base58Decode(text: string): Buffer | null {
  let value = 0n;
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return null;
    value = value * 58n + BigInt(digit);
  }
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const leadingZeros = text.length - text.replace(/^1+/, '').length;
  return Buffer.concat([Buffer.alloc(leadingZeros), value > 0n ? Buffer.from(hex, 'hex') : Buffer.alloc(0)]);
}

export function tronAddressFromAccountId(accountId: Buffer): string {
  if (accountId.length !== ACCOUNT_ID_BYTES) throw new RangeError('a TRON account id is 20 bytes');
  const payload = Buffer.concat([Buffer.from([TRON_VERSION_BYTE]), accountId]);
  return base58Encode(Buffer.concat([payload, doubleSha256(payload).subarray(0, 4)]));
}

export function isValidTronAddress(address: string): boolean {
  if (address.length !== TRON_ADDRESS_LENGTH || address[0] !== 'T') return false;
  const decoded = base58Decode(address);
  if (!decoded || decoded.length !== 1 + ACCOUNT_ID_BYTES + 4 || decoded[0] !== TRON_VERSION_BYTE) return false;
  const payload = decoded.subarray(0, 1 + ACCOUNT_ID_BYTES);
  return doubleSha256(payload)
    .subarray(0, 4)
    .equals(decoded.subarray(1 + ACCOUNT_ID_BYTES));
}
