/**
 * Pays sell orders' KES proceeds, pulling the work from trading so that
 * trading never calls payouts (payouts calls trading for the shared daily cap,
 * and no service calls one that calls it back). One batch: claim up to
 * batchSize due orders (trading leases them to this replica), make each one's
 * instruction with the same idempotent create trading used to call
 * (PayOrderProceedsUseCase: instruction id = order id, so a repeated claim
 * answers the instruction as it stands, never a second payout), then report
 * what the instruction is now: accepted while the bank works on it (trading
 * makes the order due again after its poll interval), settled or failed once
 * it answered (trading settles or rejects the order with its event).
 * A report that does not arrive is harmless: the order's lease passes, it is
 * claimed again and the same instruction is reported.
 */
import { isAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { isUnavailable } from '@platform/persistence';
import type { InstructionRecord } from '../../persistence/payout-instructions.repository';
import type { DueSellProceeds, TradingSellProceedsApi } from '../../adapters/peers/peers';
import type { PayOrderProceedsUseCase } from '../pay-order-proceeds/pay-order-proceeds.usecase';

export interface PaySellProceedsDependencies {
  trading: TradingSellProceedsApi;
  payOrderProceeds: Pick<PayOrderProceedsUseCase, 'execute'>;
  logger: Logger;
}

export type SellProceedsOutcome = 'accepted' | 'settled' | 'failed';

export class PaySellProceedsUseCase {
  constructor(private readonly deps: PaySellProceedsDependencies) {}

  /** One batch of at most `batchSize` orders; answers how many trading handed over. */
  async execute(batchSize: number): Promise<number> {
    const { proceeds } = await this.deps.trading.claimDueSellProceeds({ limit: batchSize });
    for (const due of proceeds) await this.pay(due);
    return proceeds.length;
  }

  /**
   * An unavailable peer or store stops the batch (the sweeper backs off; the
   * orders left wait for their lease). Any other refusal is this order's own
   * (a reused instruction id, a bad amount): logged, and the order is claimed
   * again after its lease, so one bad order never holds up the others.
   */
  private async pay(due: DueSellProceeds): Promise<void> {
    try {
      const instruction = await this.deps.payOrderProceeds.execute({
        instructionId: due.instructionId,
        partnerId: due.partnerId,
        orderId: due.orderId,
        payoutDestinationId: due.payoutDestinationId,
        amountKes: due.amountKes,
      });
      await this.deps.trading.recordSellProceedsOutcome(report(due, instruction));
    } catch (error) {
      if (isUnavailable(error)) throw error;
      this.deps.logger.error('sell proceeds not paid or not reported; the order is claimed again after its lease', {
        orderId: due.orderId,
        code: isAppError(error) ? error.code : undefined,
        error: isAppError(error) ? undefined : error,
      });
    }
  }
}

/** The outcome trading records for an instruction as it stands. */
export function report(
  due: DueSellProceeds,
  instruction: Pick<InstructionRecord, 'status' | 'failureCode'>,
): { orderId: string; instructionId: string; outcome: SellProceedsOutcome; failureCode?: string } {
  const base = { orderId: due.orderId, instructionId: due.instructionId };
  if (instruction.status === 'settled') return { ...base, outcome: 'settled' };
  if (instruction.status === 'failed')
    return { ...base, outcome: 'failed', failureCode: instruction.failureCode ?? 'UNKNOWN' };
  return { ...base, outcome: 'accepted' };
}
