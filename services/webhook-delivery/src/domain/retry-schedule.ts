/**
 * When a failed delivery is tried again: 7 attempts
 * in total over about 30 minutes, then the delivery is dead. The delay after
 * attempt n is RETRY_DELAYS_MS[n-1] (30 s, 1 min, 2 min, 4 min, 8 min, 15 min:
 * 30.5 min in all), each spread by ±20 % so that endpoints that failed together
 * are not retried together, and multiplied by SANDBOX_TIME_SCALE.
 *
 * A 429 or 503 answer may ask for a longer wait with Retry-After; we honour it
 * when it is longer than the schedule, up to RETRY_AFTER_DELAY_MS_MAX × scale,
 * so a partner cannot park a delivery for longer than our last step.
 */
import { randomInt } from 'node:crypto';

export const DELIVERY_ATTEMPTS_MAX = 7;
export const RETRY_DELAYS_MS: readonly number[] = [30_000, 60_000, 120_000, 240_000, 480_000, 900_000];
export const RETRY_JITTER_RATIO = 0.2;
export const RETRY_AFTER_DELAY_MS_MAX = 900_000;
/** Statuses whose Retry-After header we read. */
export const RETRY_AFTER_STATUS_CODES: ReadonlySet<number> = new Set([429, 503]);

/** A uniform number in [0, 1). */
export type RandomUnit = () => number;

const RANDOM_RESOLUTION = 1_000_000;

/** [0, 1) from node:crypto: jitter must not be predictable from Math.random's state. */
export const cryptoRandomUnit: RandomUnit = () => randomInt(0, RANDOM_RESOLUTION) / RANDOM_RESOLUTION;

/**
 * Milliseconds to wait after attempt `attemptNumber` (1-based) failed, or null
 * when that was the last attempt and the delivery is dead.
 */
export function retryDelayMs(
  attemptNumber: number,
  timeScale: number,
  random: RandomUnit = cryptoRandomUnit,
): number | null {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1)
    throw new RangeError(`attemptNumber must be >= 1, got ${attemptNumber}`);
  if (attemptNumber >= DELIVERY_ATTEMPTS_MAX) return null;
  const baseMs = RETRY_DELAYS_MS[attemptNumber - 1];
  if (baseMs === undefined) throw new Error(`no retry delay for attempt ${attemptNumber}`);
  const jitterFactor = 1 + (2 * random() - 1) * RETRY_JITTER_RATIO;
  return Math.round(baseMs * jitterFactor * timeScale);
}

/**
 * The delay to use when the endpoint asked for `retryAfterMs`: the longer of
 * the schedule and the request, the request capped at RETRY_AFTER_DELAY_MS_MAX × scale.
 */
export function honourRetryAfter(scheduledDelayMs: number, retryAfterMs: number | null, timeScale: number): number {
  if (retryAfterMs === null) return scheduledDelayMs;
  const cappedMs = Math.min(retryAfterMs, Math.round(RETRY_AFTER_DELAY_MS_MAX * timeScale));
  return Math.max(scheduledDelayMs, cappedMs);
}
