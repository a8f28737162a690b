// Proves the sealing key ring: values round-trip and never hold the plain text;
// a tampered value, a value under a key no longer in the ring, a value whose
// key-id header was altered, or one whose GCM tag was truncated (the prefix of the
// real tag, which GCM would otherwise accept) is refused; new values use the current (first) key
// while old ids still open; values sealed before key ids existed still open;
// reseal moves a value to the current key; configuration text is validated
// without ever echoing a key.
import { createCipheriv, randomBytes } from 'node:crypto';
import { SealingKeyRing } from './key-ring';

const OLD = 'ab'.repeat(32);
const NEW = 'cd'.repeat(32);

/** A value as the single-key sealing of earlier releases wrote it: `v1.<iv>.<tag>.<ciphertext>`, no key id. */
function legacySeal(plain: string, keyHex: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ].join('.');
}

describe('SealingKeyRing', () => {
  it('round-trips under the current key, names that key, and never contains the plain text', () => {
    const ring = SealingKeyRing.parse(`2026-11:${NEW},2026-05:${OLD}`);
    const sealed = ring.seal('my-signing-secret');
    expect(sealed.startsWith('v2.2026-11.')).toBe(true);
    expect(sealed).not.toContain('my-signing-secret');
    expect(ring.open(sealed)).toBe('my-signing-secret');
    expect(ring.seal('x')).not.toBe(ring.seal('x'));
    expect(ring.isCurrent(sealed)).toBe(true);
  });

  it('opens values sealed under an older key of the ring, and reseals them under the current one', () => {
    const before = SealingKeyRing.parse(`2026-05:${OLD}`);
    const after = SealingKeyRing.parse(`2026-11:${NEW},2026-05:${OLD}`);
    const sealed = before.seal('secret');
    expect(after.open(sealed)).toBe('secret');
    expect(after.isCurrent(sealed)).toBe(false);
    const resealed = after.reseal(sealed) as string;
    expect(resealed.startsWith('v2.2026-11.')).toBe(true);
    expect(after.open(resealed)).toBe('secret');
    expect(after.reseal(resealed)).toBeNull();
    // Once the old key leaves the ring, only resealed values open.
    const newOnly = SealingKeyRing.parse(`2026-11:${NEW}`);
    expect(newOnly.open(resealed)).toBe('secret');
    expect(() => newOnly.open(sealed)).toThrow(/not in the key ring/);
  });

  it('opens values sealed before key ids existed with whichever key authenticates them', () => {
    const legacy = legacySeal('old-secret', OLD);
    const ring = SealingKeyRing.parse(`k1:${NEW},k0:${OLD}`);
    expect(ring.open(legacy)).toBe('old-secret');
    expect(ring.isCurrent(legacy)).toBe(false);
    expect(ring.open(ring.reseal(legacy) as string)).toBe('old-secret');
    expect(() => SealingKeyRing.parse(NEW).open(legacy)).toThrow(/no key of the ring/);
  });

  it('treats a bare key as the ring k0', () => {
    const ring = SealingKeyRing.parse(OLD);
    expect(ring.keyIds).toEqual(['k0']);
    expect(SealingKeyRing.parse(`k1:${NEW},k0:${OLD}`).open(ring.seal('s'))).toBe('s');
  });

  it('refuses a tampered ciphertext, and a key id swapped in the header', () => {
    const ring = SealingKeyRing.parse(`a:${NEW},b:${OLD}`);
    const parts = ring.seal('secret').split('.');
    const tampered = [...parts];
    tampered[4] = Buffer.from('tampered').toString('base64url');
    expect(() => ring.open(tampered.join('.'))).toThrow();
    const relabelled = [...parts];
    relabelled[1] = 'b';
    expect(() => ring.open(relabelled.join('.'))).toThrow();
    expect(() => ring.open('v9.a.b.c.d')).toThrow(/malformed/);
  });

  it('refuses a value whose authentication tag was truncated, though its bytes are those of the real tag', () => {
    const ring = SealingKeyRing.parse(`k1:${NEW},k0:${OLD}`);
    const truncate = (sealed: string, tagIndex: number, bytes: number) => {
      const parts = sealed.split('.');
      parts[tagIndex] = Buffer.from(parts[tagIndex], 'base64url').subarray(0, bytes).toString('base64url');
      return parts.join('.');
    };
    const sealed = ring.seal('secret');
    for (const bytes of [4, 8, 12, 15]) {
      expect(() => ring.open(truncate(sealed, 3, bytes))).toThrow(
        `sealed value has a ${bytes}-byte authentication tag, not 16`,
      );
      expect(() => ring.open(truncate(legacySeal('secret', OLD), 2, bytes))).toThrow(/opens with no key of the ring/);
    }
    expect(ring.open(truncate(sealed, 3, 16))).toBe('secret');
  });

  it('refuses a value whose IV is not 12 bytes', () => {
    const ring = SealingKeyRing.parse(`k1:${NEW}`);
    const parts = ring.seal('secret').split('.');
    parts[2] = Buffer.concat([Buffer.from(parts[2], 'base64url'), Buffer.alloc(4)]).toString('base64url');
    expect(() => ring.open(parts.join('.'))).toThrow('sealed value has a 16-byte IV, not 12');
  });

  it.each([
    ['an empty text', ''],
    ['a short key', 'k1:abcd'],
    ['a bad id', `bad id:${NEW}`],
    ['a repeated id', `a:${NEW},a:${OLD}`],
    ['a repeated key', `a:${NEW},b:${NEW}`],
    [
      'too many keys',
      Array.from({ length: 9 }, (_, index) => `k${index}:${index.toString(16).padStart(2, '0').repeat(32)}`).join(','),
    ],
  ])('refuses %s, without echoing a key', (_name, text) => {
    let message = '';
    try {
      SealingKeyRing.parse(text);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toBe('');
    expect(message).not.toContain(NEW);
    expect(message).not.toContain(OLD);
  });
});
