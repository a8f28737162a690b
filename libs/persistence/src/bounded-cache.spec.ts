// Proves the cache's two bounds on a fake clock: an entry is served until its TTL
// and never after; past entriesMax the least recently used entry goes (a hit counts
// as a use); settings out of bounds are refused.
import { BoundedCache, CACHE_ENTRIES_MAX_LIMIT } from './bounded-cache';

function cacheAt(entriesMax: number, ttlMs: number) {
  const clock = { nowMs: 0 };
  const cache = new BoundedCache<string, number>({ entriesMax, ttlMs, nowMs: () => clock.nowMs });
  return { cache, clock };
}

describe('BoundedCache', () => {
  it('serves an entry until its TTL and forgets it after', () => {
    const { cache, clock } = cacheAt(10, 1_000);
    cache.set('a', 1);
    clock.nowMs = 999;
    expect(cache.get('a')).toBe(1);
    clock.nowMs = 1_000;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry past its bound', () => {
    const { cache } = cacheAt(2, 1_000);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('stays within its bound whatever the number of keys', () => {
    const { cache } = cacheAt(100, 1_000);
    for (let index = 0; index < 10_000; index += 1) cache.set(`key-${index}`, index);
    expect(cache.size).toBe(100);
    expect(cache.get('key-9999')).toBe(9_999);
    expect(cache.get('key-0')).toBeUndefined();
  });

  it('refuses bounds out of range', () => {
    expect(() => cacheAt(0, 1_000)).toThrow('entriesMax');
    expect(() => cacheAt(CACHE_ENTRIES_MAX_LIMIT + 1, 1_000)).toThrow('entriesMax');
    expect(() => cacheAt(10, 0)).toThrow('ttlMs');
  });
});
