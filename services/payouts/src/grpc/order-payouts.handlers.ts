import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import type { payouts } from '@platform/proto';
import type { InstructionRecord, PayoutInstructionsRepository } from '../persistence/payout-instructions.repository';
import type { PayOrderProceedsUseCase } from '../usecases/pay-order-proceeds/pay-order-proceeds.usecase';

function toMessage(row: InstructionRecord): payouts.PayoutInstruction {
  return {
    instructionId: row.instructionId,
    partnerId: row.partnerId,
    orderId: row.orderId,
    payoutDestinationId: row.payoutDestinationId,
    amountKes: row.amountKes,
    status: row.status,
    failureCode: row.failureCode ?? undefined,
    createdAt: new Date(row.createdAt).toISOString(),
    completedAt: row.completedAt ? new Date(row.completedAt).toISOString() : undefined,
  };
}

/** OrderPayouts: translation only. */
export function orderPayoutsHandlers(deps: {
  payOrderProceeds: PayOrderProceedsUseCase;
  instructions: PayoutInstructionsRepository;
}): AsyncImplementation<typeof payouts.OrderPayoutsService> {
  return {
    async payOrderProceeds(request) {
      return toMessage(await deps.payOrderProceeds.execute(request));
    },
    async getPayoutInstruction(request) {
      const row = /^[0-9a-f-]{36}$/.test(request.instructionId)
        ? await deps.instructions.find(request.instructionId)
        : null;
      // Transfers' instructions are not order proceeds: trading never names them.
      if (!row || row.transferId !== null) throw new AppError('PAYOUT_INSTRUCTION_NOT_FOUND');
      return toMessage(row);
    },
  };
}
