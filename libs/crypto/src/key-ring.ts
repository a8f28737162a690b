/**
 * Secrets at rest (partners' signing secrets, webhook secrets) are sealed with
 * AES-256-GCM under a key ring: a few keys, each with an id, the first being
 * the current one. New values are sealed under the current key and carry its
 * id; a value opens with whichever key of the ring its id names. So a key
 * rotates without downtime: put the new key first and keep the old one after
 * it, let `ops secrets reseal` move every stored value to the new key, then
 * drop the old key.
 *
 * Configuration text: `<id>:<64 hex>[,<id>:<64 hex>…]`, current key first. A
 * bare 64-hex key (the single-key form of earlier releases) is the ring
 * `k0:<key>`. Values sealed before key ids existed (`v1.`) carry no id: they
 * open with whichever key of the ring authenticates them.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SealingKey {
  id: string;
  keyHex: string;
}

/** More keys than this in one ring is a configuration mistake, not a rotation. */
export const SEALING_KEYS_MAX = 8;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const KEY_HEX = /^[0-9a-fA-F]{64}$/;
const LEGACY_KEY_ID = 'k0';
const SEAL_VERSION = 'v2';
const LEGACY_SEAL_VERSION = 'v1';
const IV_BYTES = 12;
/**
 * GCM's full tag. Node's decipher accepts shorter tags (down to 4 bytes) unless told the length,
 * and a tag truncated to n bytes is forged with about 2^(8n) tries: every value must carry all 16.
 */
const AUTH_TAG_BYTES = 16;

function parseEntry(entry: string): SealingKey {
  const separator = entry.indexOf(':');
  const id = separator < 0 ? LEGACY_KEY_ID : entry.slice(0, separator).trim();
  const keyHex = (separator < 0 ? entry : entry.slice(separator + 1)).trim();
  if (!KEY_ID.test(id)) throw new RangeError('a key id is 1 to 32 of [A-Za-z0-9_-]');
  if (!KEY_HEX.test(keyHex)) throw new RangeError(`key ${id} is not 64 hex characters (32 bytes)`);
  return { id, keyHex: keyHex.toLowerCase() };
}

/** Opens one value; throws when the IV or tag is not of its full length, or GCM does not authenticate it. */
function decrypt(keyHex: string, iv: string, tag: string, ciphertext: string, associatedData: string | null): string {
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (ivBytes.length !== IV_BYTES) throw new Error(`sealed value has a ${ivBytes.length}-byte IV, not ${IV_BYTES}`);
  if (tagBytes.length !== AUTH_TAG_BYTES)
    throw new Error(`sealed value has a ${tagBytes.length}-byte authentication tag, not ${AUTH_TAG_BYTES}`);
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), ivBytes, {
    authTagLength: AUTH_TAG_BYTES,
  });
  if (associatedData !== null) decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(tagBytes);
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

export class SealingKeyRing {
  private readonly keys: ReadonlyMap<string, string>;
  readonly currentKeyId: string;

  private constructor(entries: SealingKey[]) {
    if (entries.length === 0) throw new RangeError('a key ring needs at least one key');
    if (entries.length > SEALING_KEYS_MAX) throw new RangeError(`a key ring holds at most ${SEALING_KEYS_MAX} keys`);
    const keys = new Map<string, string>();
    for (const entry of entries) {
      if (keys.has(entry.id)) throw new RangeError(`key id ${entry.id} appears twice`);
      if ([...keys.values()].includes(entry.keyHex))
        throw new RangeError(`key ${entry.id} repeats another key of the ring`);
      keys.set(entry.id, entry.keyHex);
    }
    this.keys = keys;
    this.currentKeyId = entries[0].id;
  }

  /** Parses the configuration text; throws RangeError saying what is wrong (never echoing a key). */
  static parse(text: string): SealingKeyRing {
    return new SealingKeyRing(text.split(',').map((entry) => parseEntry(entry.trim())));
  }

  static of(keys: SealingKey[]): SealingKeyRing {
    return new SealingKeyRing(keys.map((key) => parseEntry(`${key.id}:${key.keyHex}`)));
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** Every key, current first: for checks such as refusing known development keys. */
  get keysHex(): string[] {
    return [...this.keys.values()];
  }

  /** `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url), the header bound to the ciphertext. */
  seal(plain: string): string {
    const header = `${SEAL_VERSION}.${this.currentKeyId}`;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(this.keys.get(this.currentKeyId) as string, 'hex'), iv, {
      authTagLength: AUTH_TAG_BYTES,
    });
    cipher.setAAD(Buffer.from(header, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      header,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      ciphertext.toString('base64url'),
    ].join('.');
  }

  /** Opens a sealed value; throws when its key is not in the ring, or it was tampered with. */
  open(sealed: string): string {
    const parts = sealed.split('.');
    if (parts[0] === SEAL_VERSION && parts.length === 5) {
      const [version, keyId, iv, tag, ciphertext] = parts;
      const keyHex = this.keys.get(keyId);
      if (!keyHex) throw new Error(`sealed under key ${keyId}, which is not in the key ring`);
      return decrypt(keyHex, iv, tag, ciphertext, `${version}.${keyId}`);
    }
    if (parts[0] === LEGACY_SEAL_VERSION && parts.length === 4) return this.openLegacy(parts[1], parts[2], parts[3]);
    throw new Error('malformed sealed value');
  }

  /** True when the value is sealed under the current key (nothing to reseal). */
  isCurrent(sealed: string): boolean {
    const [version, keyId] = sealed.split('.', 2);
    return version === SEAL_VERSION && keyId === this.currentKeyId;
  }

  /** The value sealed under the current key, or null when it already is. */
  reseal(sealed: string): string | null {
    return this.isCurrent(sealed) ? null : this.seal(this.open(sealed));
  }

  private openLegacy(iv: string, tag: string, ciphertext: string): string {
    for (const keyHex of this.keys.values()) {
      try {
        return decrypt(keyHex, iv, tag, ciphertext, null);
      } catch {
        // Not this key: GCM's tag says so; try the next.
      }
    }
    throw new Error('sealed value (without key id) opens with no key of the ring');
  }
}
