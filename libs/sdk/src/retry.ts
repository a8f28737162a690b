/**
 * When a failed attempt is tried again, and after how long. Pure, so the policy
 * is tested without a network.
 *
 * - 429 is always retried (within the caps): a rate-limited or cooling-down
 *   request was refused before anything happened.
 * - A retry-safe 503 (the codes below) and a network failure are retried only
 *   when repeating the request cannot act twice: an idempotent operation, or a
 *   create carrying its idempotencyKey or partnerReference ("keyed"). Never an
 *   "unsafe" one (a mobile-money prompt, a confirmation code, a sandbox credit).
 * - The wait is capped exponential backoff with jitter, never shorter than the
 *   server's Retry-After; a server asking for longer than `retryAfterMsMax` is
 *   not waited for: the error goes to the caller.
 */

export type RetrySafety = 'idempotent' | 'keyed' | 'unsafe';

export interface RetryOptions {
  /** Attempts in all, the first included. */
  attemptsMax: number;
  baseDelayMs: number;
  delayMsMax: number;
  /** A Retry-After longer than this is handed to the caller instead of waited for. */
  retryAfterMsMax: number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  attemptsMax: 4,
  baseDelayMs: 250,
  delayMsMax: 8_000,
  retryAfterMsMax: 60_000,
};

/** 503 codes the specification marks "retry shortly"; the rest (kill switch, debit failed or ambiguous, a prompt that may be out, …) need a person. */
export const RETRYABLE_503_CODES: ReadonlySet<string> = new Set([
  'SERVICE_UNAVAILABLE',
  'RATE_UNAVAILABLE',
  'ORDER_DAILY_CAP_RATE_UNAVAILABLE',
  'PARTNER_VA_ACTIVATING',
  'KES_BALANCE_UNREADABLE',
]);

export type AttemptOutcome =
  { kind: 'response'; status: number; code?: string; retryAfterSeconds?: number } | { kind: 'network' };

/** Keys that make a POST safe to repeat: the server answers a repeat with the original. */
const IDEMPOTENCY_FIELDS = ['idempotencyKey', 'partnerReference'] as const;

/** How safe a request is to repeat, from its method and (for POST) whether its body carries its key. */
export function retrySafetyOf(method: string, body: unknown): RetrySafety {
  const upper = method.toUpperCase();
  if (upper !== 'POST') return 'idempotent';
  if (!body || typeof body !== 'object') return 'unsafe';
  const record = body as Record<string, unknown>;
  return IDEMPOTENCY_FIELDS.some((field) => typeof record[field] === 'string' && (record[field] as string).length > 0)
    ? 'keyed'
    : 'unsafe';
}

/** Capped exponential backoff with equal jitter: half fixed, half random. `attempt` counts from 1. */
export function backoffMs(attempt: number, options: RetryOptions, random: () => number = Math.random): number {
  const exponential = Math.min(options.delayMsMax, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random());
}

/** The wait before the next attempt, or null when the outcome goes to the caller. `attempt` is the one that just failed. */
export function nextRetryDelayMs(
  outcome: AttemptOutcome,
  safety: RetrySafety,
  attempt: number,
  options: RetryOptions,
  random: () => number = Math.random,
): number | null {
  if (attempt >= options.attemptsMax) return null;
  const backoff = backoffMs(attempt, options, random);
  if (outcome.kind === 'network') return safety === 'unsafe' ? null : backoff;
  const askedMs = outcome.retryAfterSeconds === undefined ? 0 : outcome.retryAfterSeconds * 1000;
  if (askedMs > options.retryAfterMsMax) return null;
  if (outcome.status === 429) return Math.max(backoff, askedMs);
  if (
    outcome.status === 503 &&
    safety !== 'unsafe' &&
    outcome.code !== undefined &&
    RETRYABLE_503_CODES.has(outcome.code)
  ) {
    return Math.max(backoff, askedMs);
  }
  return null;
}
