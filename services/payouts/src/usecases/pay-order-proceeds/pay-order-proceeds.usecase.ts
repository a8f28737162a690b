/**
 * Trading asks for a sell order's KES proceeds to be paid out. Recorded as a
 * pending instruction, due at once; the payout runner drives it through the
 * bank. Idempotent on instructionId: the same body answers the instruction as
 * it stands, a different body PAYOUT_INSTRUCTION_ID_REUSED.
 */
import { AppError, validationFailed } from '@platform/errors';
import { Big, formatAmount, parsePositiveAmount } from '@platform/money';
import type { InstructionRecord, PayoutInstructionsRepository } from '../../persistence/payout-instructions.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface PayOrderProceedsCommand {
  instructionId: string;
  partnerId: string;
  orderId: string;
  payoutDestinationId: string;
  amountKes: string;
}

export class PayOrderProceedsUseCase {
  constructor(private readonly instructions: PayoutInstructionsRepository, private readonly onDue: () => void) {}

  async execute(command: PayOrderProceedsCommand): Promise<InstructionRecord> {
    const amount = parsePositiveAmount(command.amountKes, 'KES');
    const bad = (['instructionId', 'partnerId', 'orderId', 'payoutDestinationId'] as const).filter((field) => !UUID.test(command[field]));
    if (amount === null) bad.push('amountKes' as never);
    if (bad.length > 0 || amount === null) throw validationFailed(bad);
    const body = { ...command, amountKes: formatAmount(amount, 'KES') };
    const inserted = await this.instructions.insert(body);
    if (inserted) {
      this.onDue();
      return inserted;
    }
    const existing = await this.instructions.find(command.instructionId);
    if (!existing) throw new Error('payout instruction vanished after a conflicting insert');
    const same = existing.partnerId === body.partnerId && existing.orderId === body.orderId
      && existing.payoutDestinationId === body.payoutDestinationId && new Big(existing.amountKes).eq(amount);
    if (!same) throw new AppError('PAYOUT_INSTRUCTION_ID_REUSED');
    return existing;
  }
}
