/**
 * A partner's budget of wrong confirmation codes. Each confirmation allows five
 * wrong codes, but creating transfers costs nothing, so a stolen credential
 * could create transfer after transfer and keep guessing. The budget bounds the
 * guesses across all of a partner's confirmations (transfers, batches, USDT
 * sends): wrong codes are counted over a rolling window, and the wrong code
 * that brings the count to the budget locks every confirmation of the partner
 * until an operator clears it. The lock does not lift with time: a partner
 * whose administrators' mailbox is being guessed at needs a person to look.
 * A right code consumes nothing.
 */

/** The partner's whole budget, before anything is counted. */
export interface WrongCodeBudgetSettings {
  /** Wrong codes per rolling window; the one that reaches it locks the partner's confirmations. */
  wrongCodesMax: number;
  /** The rolling window, wall-clock milliseconds (never scaled by SANDBOX_TIME_SCALE: it is a security bound). */
  windowMs: number;
}

export const WRONG_CODES_MAX_DEFAULT = 20;
/** One wrong code would lock; more than a thousand a day is no longer a budget. */
export const WRONG_CODES_MAX_BOUNDS = { min: 1, max: 1_000 } as const;
export const WRONG_CODE_WINDOW_MS_DEFAULT = 24 * 60 * 60_000;
export const WRONG_CODE_WINDOW_MS_BOUNDS = { min: 60_000, max: 30 * 24 * 60 * 60_000 } as const;

/** The oldest instant a wrong code counted at `now` still shares the window with. */
export function windowStartOf(now: Date, settings: WrongCodeBudgetSettings): Date {
  return new Date(now.getTime() - settings.windowMs);
}

/** True once `wrongCodesInWindow` (this one included) has spent the budget. */
export function isBudgetSpent(wrongCodesInWindow: number, settings: WrongCodeBudgetSettings): boolean {
  return wrongCodesInWindow >= settings.wrongCodesMax;
}

/**
 * What counting one wrong code did: how many are in the window now, and whether
 * this one locked the partner (true exactly once per lock, so the alert is
 * raised once; a wrong code racing the lock counts but does not lock again).
 */
export interface WrongCodeCount {
  wrongCodesInWindow: number;
  lockedNow: boolean;
}

/** Whether the count just made should set the lock: spent, and no lock yet. */
export function shouldLock(
  wrongCodesInWindow: number,
  alreadyLocked: boolean,
  settings: WrongCodeBudgetSettings,
): boolean {
  return !alreadyLocked && isBudgetSpent(wrongCodesInWindow, settings);
}
