// Proves page cursors round-trip and that anything else (garbage, tampering,
// wrong shapes) is refused rather than misread.
import { decodeCursor, encodeCursor } from './list-cursor';

describe('list cursors', () => {
  it('round-trips a position', () => {
    const position = { createdAt: new Date('2026-01-02T03:04:05.678Z'), id: '0b6c9d1e-8a2f-4c3b-9d4e-5f6a7b8c9d0e' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  it('refuses what it did not make', () => {
    for (const bad of ['', 'not a cursor', 'abc', Buffer.from('2026-01-02T03:04:05.678Z|nope').toString('base64url'),
      Buffer.from('yesterday|0b6c9d1e-8a2f-4c3b-9d4e-5f6a7b8c9d0e').toString('base64url'), 'x'.repeat(300)]) {
      expect(decodeCursor(bad)).toBeNull();
    }
  });
});
