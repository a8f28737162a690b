import type { AsyncImplementation } from '@platform/grpc';
import type { payouts } from '@platform/proto';
import type { PayoutInstructionsRepository } from '../persistence/payout-instructions.repository';
import type { UnlockPartnerConfirmationsUseCase } from '../usecases/unlock-partner-confirmations/unlock-partner-confirmations.usecase';

/** How many stuck instructions one answer lists. */
const STUCK_LISTED_MAX = 200;

/** PayoutsOperator: translation only. */
export function payoutsOperatorHandlers(deps: {
  instructions: PayoutInstructionsRepository;
  stuckAfterMs: number;
  unlockConfirmations: UnlockPartnerConfirmationsUseCase;
}): AsyncImplementation<typeof payouts.PayoutsOperatorService> {
  return {
    async listStuckInstructions() {
      const rows = await deps.instructions.listStuck(deps.stuckAfterMs, STUCK_LISTED_MAX);
      return {
        instructions: rows.map((row) => ({
          instructionId: row.instructionId,
          partnerId: row.partnerId,
          orderId: row.orderId ?? undefined,
          transferId: row.transferId ?? undefined,
          status: row.status,
          amountKes: row.amountKes,
          attempts: row.attempts,
          createdAt: new Date(row.createdAt).toISOString(),
        })),
      };
    },
    async unlockPartnerConfirmations(request) {
      const cleared = await deps.unlockConfirmations.execute({ partnerId: request.partnerId });
      return {
        partnerId: request.partnerId,
        wasLocked: cleared.lockedAt !== null,
        lockedAt: cleared.lockedAt ? new Date(cleared.lockedAt).toISOString() : undefined,
        wrongCodesCleared: cleared.wrongCodesCleared,
      };
    },
  };
}
