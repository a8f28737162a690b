/**
 * The one shape of an in-process cache: at most `entriesMax` entries, each
 * served at most `ttlMs` after it was stored, the least recently used evicted
 * first. Nothing held in memory grows with the data (docs/retention.md): a
 * cache keyed by partner, credential or account stays within its bound
 * whatever the number of partners, and a stale entry is never served past its
 * age. A Map keeps insertion order, and a hit re-inserts its key, so the first
 * key is always the least recently used: every operation is O(1).
 */

export interface BoundedCacheOptions {
  entriesMax: number;
  ttlMs: number;
  /** The clock (tests pass their own). */
  nowMs?: () => number;
}

/** Bounds of any cache's settings: beyond them a cache is a leak or a stale copy. */
export const CACHE_ENTRIES_MAX_LIMIT = 1_000_000;
export const CACHE_TTL_MS_LIMIT = 24 * 60 * 60_000;

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAtMs: number }>();
  private readonly nowMs: () => number;

  constructor(private readonly options: BoundedCacheOptions) {
    const { entriesMax, ttlMs } = options;
    if (!Number.isSafeInteger(entriesMax) || entriesMax < 1 || entriesMax > CACHE_ENTRIES_MAX_LIMIT)
      throw new Error(`cache entriesMax must be 1..${CACHE_ENTRIES_MAX_LIMIT}`);
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > CACHE_TTL_MS_LIMIT)
      throw new Error(`cache ttlMs must be 1..${CACHE_TTL_MS_LIMIT}`);
    this.nowMs = options.nowMs ?? Date.now;
  }

  /** The value stored under `key` if younger than the TTL (it becomes the most recently used); undefined otherwise. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAtMs <= this.nowMs()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` for the TTL, evicting the least recently used entries beyond the bound. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAtMs: this.nowMs() + this.options.ttlMs });
    while (this.entries.size > this.options.entriesMax) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Entries held, expired ones not yet met included (never above entriesMax). */
  get size(): number {
    return this.entries.size;
  }
}
