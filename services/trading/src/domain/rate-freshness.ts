/**
 * Whether a feed observation is live enough to quote from (no live rate, no
 * quote). The staleness limit is wall-clock time and is never scaled by
 * SANDBOX_TIME_SCALE.
 */

/** An observation stamped further ahead of our clock than this is not trusted either. */
export const RATE_OBSERVED_AHEAD_MS_MAX = 5_000;

/** Live when observed at most `stalenessLimitMs` ago (inclusive) and not implausibly in the future. */
export function isRateLive(observedAt: Date, now: Date, stalenessLimitMs: number): boolean {
  const ageMs = now.getTime() - observedAt.getTime();
  return Number.isFinite(ageMs) && ageMs <= stalenessLimitMs && ageMs >= -RATE_OBSERVED_AHEAD_MS_MAX;
}
