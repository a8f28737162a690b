/**
 * How long a quote lives: QUOTE_TTL_MS,
 * multiplied by SANDBOX_TIME_SCALE in sandbox mode only, never below 1 ms.
 */
export const QUOTE_LIFETIME_MS_MIN = 1;

export function quoteLifetimeMs(ttlMs: number, mode: 'sandbox' | 'production', sandboxTimeScale: number): number {
  const scaled = mode === 'sandbox' ? ttlMs * sandboxTimeScale : ttlMs;
  return Math.max(QUOTE_LIFETIME_MS_MIN, Math.round(scaled));
}

export function quoteExpiresAt(now: Date, lifetimeMs: number): Date {
  return new Date(now.getTime() + lifetimeMs);
}
