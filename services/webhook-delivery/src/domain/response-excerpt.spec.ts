// Proves the stored response excerpt is bounded to 512 bytes of valid UTF-8
// and holds nothing PostgreSQL text would refuse.
import { responseExcerpt, RESPONSE_EXCERPT_BYTES_MAX } from './response-excerpt';

describe('responseExcerpt', () => {
  it('keeps a short body as is', () => {
    expect(responseExcerpt(Buffer.from('{"ok":true}'))).toBe('{"ok":true}');
  });

  it('cuts a long body to 512 bytes', () => {
    expect(Buffer.byteLength(responseExcerpt(Buffer.alloc(4096, 'a')))).toBe(RESPONSE_EXCERPT_BYTES_MAX);
  });

  it('never exceeds 512 bytes when a multi-byte character straddles the cut', () => {
    const body = Buffer.from(`${'a'.repeat(511)}€€€`);
    const excerpt = responseExcerpt(body);
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(RESPONSE_EXCERPT_BYTES_MAX);
    expect(excerpt.startsWith('a'.repeat(511))).toBe(true);
  });

  it('drops NUL characters', () => {
    expect(responseExcerpt(Buffer.from('a\u0000b'))).toBe('ab');
  });
});
