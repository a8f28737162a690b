/**
 * Trading asks for a sell order's KES proceeds to be paid out. Recorded as a
 * pending instruction, due at once; the payout runner drives it through the
 * bank. Idempotent on instructionId (claimIdempotently): the same body answers
 * the instruction as it stands, a different body PAYOUT_INSTRUCTION_ID_REUSED.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, formatAmount, parsePositiveAmount } from '@platform/money';
import { claimIdempotently } from '@platform/persistence';
import type { InstructionRecord, PayoutInstructionsRepository } from '../../persistence/payout-instructions.repository';

export interface PayOrderProceedsCommand {
  instructionId: string;
  partnerId: string;
  orderId: string;
  payoutDestinationId: string;
  amountKes: string;
}

export class PayOrderProceedsUseCase {
  constructor(
    private readonly instructions: PayoutInstructionsRepository,
    private readonly onDue: () => void,
  ) {}

  async execute(command: PayOrderProceedsCommand): Promise<InstructionRecord> {
    const amount = parsePositiveAmount(command.amountKes, 'KES');
    const bad = (['instructionId', 'partnerId', 'orderId', 'payoutDestinationId'] as const).filter(
      (field) => !isUuid(command[field]),
    );
    if (amount === null) bad.push('amountKes' as never);
    if (bad.length > 0 || amount === null) throw validationFailed(bad);
    const body = { ...command, amountKes: formatAmount(amount, 'KES') };
    const { resource, replayed } = await claimIdempotently({
      requestHash: instructionFingerprint(body),
      reusedError: 'PAYOUT_INSTRUCTION_ID_REUSED',
      find: async () => fingerprinted(await this.instructions.find(command.instructionId)),
      claim: async () => fingerprinted(await this.instructions.insert(body)),
    });
    if (!replayed) this.onDue();
    return resource.instruction;
  }
}

/**
 * What a repeat must match: instructions keep no request hash, so the
 * fingerprint is made from the stored columns (the amount at KES scale).
 */
function instructionFingerprint(
  instruction: Pick<InstructionRecord, 'partnerId' | 'orderId' | 'payoutDestinationId' | 'amountKes'>,
): string {
  return JSON.stringify([
    instruction.partnerId,
    instruction.orderId,
    instruction.payoutDestinationId,
    formatAmount(new Big(instruction.amountKes), 'KES'),
  ]);
}

function fingerprinted(
  instruction: InstructionRecord | null,
): { instruction: InstructionRecord; requestHash: string } | null {
  return instruction && { instruction, requestHash: instructionFingerprint(instruction) };
}
