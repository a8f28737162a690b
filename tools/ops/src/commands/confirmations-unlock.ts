/**
 * `confirmations unlock`: lifts a partner's confirmation lock. Once a partner's
 * wrong codes across all its confirmations reach the payouts service's budget
 * (CONFIRMATION_WRONG_CODE_BUDGET per CONFIRMATION_WRONG_CODE_WINDOW_MS, default
 * 20 per 24 h), every confirmation and resend of the partner answers
 * PARTNER_CONFIRMATIONS_LOCKED until this runs; the service logs the alert
 * `confirmation_code_budget_spent` naming the partner. Unlocking also forgets
 * the wrong codes counted (a fresh budget). Harmless to repeat.
 */
import { FlagReader, FlagValues } from '../flags';
import { defineCommand, PARTNER_FLAG } from './command';

export interface ConfirmationsUnlockInput {
  partnerId: string;
}

export interface ConfirmationsUnlockResult {
  partnerId: string;
  wasLocked: boolean;
  lockedAt?: string;
  wrongCodesCleared: number;
}

export function parseConfirmationsUnlock(values: FlagValues): ConfirmationsUnlockInput {
  const flags = new FlagReader(values);
  const input = { partnerId: flags.uuid('partner', true) };
  flags.done();
  return input;
}

function describeUnlock(result: ConfirmationsUnlockResult): string {
  if (!result.wasLocked)
    return `Partner ${result.partnerId} was not locked; ${result.wrongCodesCleared} wrong code(s) forgotten.`;
  return `Partner ${result.partnerId} unlocked (locked since ${result.lockedAt}); ${result.wrongCodesCleared} wrong code(s) forgotten.`;
}

export const confirmationsUnlock = defineCommand<ConfirmationsUnlockInput, ConfirmationsUnlockResult>({
  name: 'confirmations unlock',
  summary: "Lift a partner's confirmation lock (its wrong-code budget spent) and start it a fresh budget.",
  synopsis: '--partner ID',
  flags: { partner: PARTNER_FLAG },
  parse: parseConfirmationsUnlock,
  async run(input, clients) {
    const result = await clients.payoutsOperator().unlockPartnerConfirmations({ partnerId: input.partnerId });
    return {
      partnerId: result.partnerId,
      wasLocked: result.wasLocked,
      lockedAt: result.lockedAt,
      wrongCodesCleared: result.wrongCodesCleared,
    };
  },
  describe: describeUnlock,
});
