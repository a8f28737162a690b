/**
 * The rolling 24-hour cap, counted by the minute, so that a reservation costs
 * the same whatever the partner's volume. Pure arithmetic; the database keeps
 * the same rules (persistence/migrations/1732710000000-cap-windows.ts).
 *
 * - A usage counts in its minute: the UTC minute (from the Unix epoch) of the
 *   time it was counted at, its `created_at`.
 * - A reservation counted at time t sees every unreleased usage whose minute
 *   starts at or after `capWindowStart(t)` = the start of t's minute − 24 h:
 *   the 1,441 minutes from 24 hours before t's minute to t's minute (and any
 *   later one). That covers the exact window (t − 24 h, t] plus at most one
 *   minute before it, so the rounding is the platform's, never the partner's:
 *   the cap is never exceeded over any 24 hours.
 * - So a usage made at c is freed at exactly `capUsageFreedAt(c)` = the start
 *   of c's minute + 24 h + 1 min: between 24 h and 24 h 1 min after c.
 * - A partner's window only moves forward. A reservation whose clock reads
 *   earlier than the latest minute already counted (another replica's clock
 *   ahead, or a transaction that waited for the partner's lock) is counted at
 *   the start of that latest minute instead, so every usage's own 24 hours is
 *   inside the window it was checked against. Only the database applies this
 *   rule (cap_window_lock, under the window's lock; test/cap-window.int.spec.ts
 *   proves it).
 */
import { DAILY_CAP_WINDOW_MS } from './daily-cap';

/** One bucket: a minute. */
export const CAP_BUCKET_MS = 60_000;

/** Buckets a reservation can see: 24 hours of minutes plus the current one. */
export const CAP_WINDOW_BUCKETS = DAILY_CAP_WINDOW_MS / CAP_BUCKET_MS + 1;

/** The start of the UTC minute holding `at`. */
export function capBucketStart(at: Date): Date {
  const ms = at.getTime();
  if (!Number.isFinite(ms)) throw new Error('cap time is not a valid date');
  return new Date(Math.floor(ms / CAP_BUCKET_MS) * CAP_BUCKET_MS);
}

/** The first minute a reservation counted at `at` sees. */
export function capWindowStart(at: Date): Date {
  return new Date(capBucketStart(at).getTime() - DAILY_CAP_WINDOW_MS);
}

/** When a usage counted at `createdAt` stops counting: its minute's start + 24 h + 1 min. */
export function capUsageFreedAt(createdAt: Date): Date {
  return new Date(capBucketStart(createdAt).getTime() + DAILY_CAP_WINDOW_MS + CAP_BUCKET_MS);
}
