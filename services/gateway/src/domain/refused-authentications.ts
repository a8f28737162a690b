/**
 * Refused authentications per source address, on this replica. An address
 * that keeps sending requests that fail authentication (unknown keys, bad
 * signatures, replays) is answered 429 before any credential lookup once it
 * reaches the limit, until its window ends: guessing keys or flooding the
 * credential store from one address costs it a minute per `limitPerWindow`
 * tries. Authentic requests are never counted, so a partner is not slowed by
 * someone else's failures unless they share an address (a NAT): the limit is
 * set well above what a misconfigured client produces.
 *
 * Kept in memory, per replica, on purpose: a shared store would turn every
 * refused request into a Redis write, the very load this bounds. With N
 * replicas an address gets at most N × the limit; the ingress limit in front
 * (docs/deploying.md) is the global one.
 */
export const REFUSAL_WINDOW_MS = 60_000;
/** Bounds memory against many addresses: the oldest windows go first. */
export const REFUSAL_ADDRESSES_MAX = 50_000;

interface Window {
  startedAtMs: number;
  refusals: number;
}

export interface RefusalVerdict {
  limited: boolean;
  /** Whole seconds until the address's window ends (at least 1); meaningful when limited. */
  retryAfterSeconds: number;
}

const MS_PER_SECOND = 1_000;

export class RefusedAuthentications {
  // Insertion order is window-start order: a window that restarts is re-inserted at the end.
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limitPerWindow: number,
    private readonly nowMs: () => number = Date.now,
    private readonly addressesMax: number = REFUSAL_ADDRESSES_MAX,
  ) {}

  /** Whether `address` has used up its refusals in the current window. */
  verdict(address: string): RefusalVerdict {
    const now = this.nowMs();
    const window = this.liveWindow(address, now);
    if (!window || window.refusals < this.limitPerWindow) return { limited: false, retryAfterSeconds: 0 };
    const remainingMs = window.startedAtMs + REFUSAL_WINDOW_MS - now;
    return { limited: true, retryAfterSeconds: Math.max(1, Math.ceil(remainingMs / MS_PER_SECOND)) };
  }

  /** Counts one refused authentication from `address`; true when this one reached the limit. */
  record(address: string): boolean {
    const now = this.nowMs();
    const window = this.liveWindow(address, now);
    if (window) {
      window.refusals += 1;
      return window.refusals === this.limitPerWindow;
    }
    this.evictEnded(now);
    if (this.windows.size >= this.addressesMax) this.evictOldest();
    this.windows.set(address, { startedAtMs: now, refusals: 1 });
    return this.limitPerWindow === 1;
  }

  /** Addresses tracked now (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  private liveWindow(address: string, now: number): Window | undefined {
    const window = this.windows.get(address);
    if (!window) return undefined;
    if (window.startedAtMs + REFUSAL_WINDOW_MS > now) return window;
    this.windows.delete(address);
    return undefined;
  }

  private evictEnded(now: number): void {
    for (const [address, window] of this.windows) {
      if (window.startedAtMs + REFUSAL_WINDOW_MS > now) break;
      this.windows.delete(address);
    }
  }

  private evictOldest(): void {
    const oldest = this.windows.keys().next().value;
    if (oldest !== undefined) this.windows.delete(oldest);
  }
}
