/**
 * What the payout runner does for a transfer's instruction (the order
 * proceeds path is unchanged): the destination comes from the transfer, and
 * the bank's answer resolves the hold exactly once before the transfer moves:
 * - settled: the hold (amount + fee) is posted in one balanced entry, the
 *   amount to bank clearing and the fee to fee revenue;
 * - failed: the hold is voided and the daily-cap usage released (value never
 *   moved).
 * The ledger and trading are called first, outside any transaction (each
 * idempotent on the transfer's id: the same post or void again is answered
 * alike and moves nothing), then, in one short transaction fenced by the
 * step's lease, the instruction completes, the transfer reads settled /
 * failed and transfer.settled / transfer.failed is enqueued. The outcome is
 * the bank's, the same for every owner, so an owner whose lease passed (it
 * stalled past it) resolves the hold as the new owner does, once in all, and
 * its commit fails. A crash between the ledger's answer and the commit
 * repeats the same ledger request (idempotent) next time.
 */
import { enqueueEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { DataSource, EntityManager, StepLease } from '@platform/persistence';
import { releaseCapIdempotently, voidHoldIdempotently } from '../../adapters/peers/holds';
import type { LedgerApi, ServiceAccounts, TradingLimitsApi } from '../../adapters/peers/peers';
import { maskAccountNumber } from '../../domain/ids';
import { holdAmountKes } from '../../domain/transfer-fee';
import type { InstructionRecord, PayoutInstructionsRepository } from '../../persistence/payout-instructions.repository';
import type { TransferRecord, TransfersRepository } from '../../persistence/transfers.repository';

export type BankOutcome = { status: 'settled' } | { status: 'failed'; failureCode: string };

export interface TransferOutcomesDependencies {
  dataSource: DataSource;
  transfers: TransfersRepository;
  instructions: PayoutInstructionsRepository;
  ledger: Pick<LedgerApi, 'postHold' | 'voidHold' | 'getHold'>;
  trading: TradingLimitsApi;
  serviceAccounts: ServiceAccounts;
  logger: Logger;
}

export class TransferOutcomes {
  constructor(private readonly deps: TransferOutcomesDependencies) {}

  async transferOf(
    instruction: InstructionRecord,
    manager: EntityManager = this.deps.dataSource.manager,
  ): Promise<TransferRecord> {
    const transfer = await this.deps.transfers.findById(manager, instruction.transferId!);
    if (!transfer) throw new Error(`instruction ${instruction.instructionId} names a missing transfer`);
    return transfer;
  }

  async finish(instruction: InstructionRecord, outcome: BankOutcome, lease: StepLease): Promise<void> {
    const transfer = await this.transferOf(instruction);
    if (!lease.held) return; // another replica has the instruction now, and finishes it itself
    await this.resolveHold(transfer, outcome);
    await lease.commit((manager) => this.record(manager, instruction, transfer, outcome));
    this.deps.logger.info('transfer completed', {
      transferId: transfer.transferId,
      status: outcome.status,
      failureCode: outcome.status === 'failed' ? outcome.failureCode : undefined,
    });
  }

  /** The outcome committed with its event, inside the transaction behind the step's fence. */
  private async record(
    manager: EntityManager,
    instruction: InstructionRecord,
    transfer: TransferRecord,
    outcome: BankOutcome,
  ): Promise<void> {
    const settledAt = new Date();
    await this.deps.instructions.complete(instruction.instructionId, outcome, manager);
    const moved = await this.deps.transfers.markOutcome(
      manager,
      transfer.transferId,
      outcome.status === 'settled' ? { status: 'settled', settledAt } : outcome,
    );
    if (moved) {
      await enqueueEvent(manager, {
        partnerId: transfer.partnerId,
        type: outcome.status === 'settled' ? 'transfer.settled' : 'transfer.failed',
        data: {
          transferId: transfer.transferId,
          partnerReference: transfer.partnerReference,
          rail: transfer.rail,
          status: outcome.status,
          amount: { currency: 'KES', value: transfer.amountKes },
          fee: { currency: 'KES', value: transfer.feeKes },
          destinationAccountNumber: maskAccountNumber(transfer.accountNumber),
          failureCode: outcome.status === 'failed' ? outcome.failureCode : null,
          settledAt: outcome.status === 'settled' ? settledAt.toISOString() : null,
        },
      });
    }
  }

  /** Posts the hold (settled) or voids it and gives the daily cap back (failed); idempotent. */
  private async resolveHold(transfer: TransferRecord, outcome: BankOutcome): Promise<void> {
    if (outcome.status === 'settled') return this.postHold(transfer);
    await voidHoldIdempotently(this.deps.ledger, transfer.transferId);
    await releaseCapIdempotently(this.deps.trading, transfer.transferId);
  }

  private async postHold(transfer: TransferRecord): Promise<void> {
    const amount = new Big(transfer.amountKes);
    const fee = new Big(transfer.feeKes);
    const counterPostings = [
      { accountId: await this.deps.serviceAccounts.id('bank_clearing', 'KES'), amount: formatAmount(amount, 'KES') },
    ];
    if (fee.gt(0))
      counterPostings.push({
        accountId: await this.deps.serviceAccounts.id('fee_revenue', 'KES'),
        amount: formatAmount(fee, 'KES'),
      });
    await this.deps.ledger.postHold({
      holdId: transfer.transferId,
      postAmount: formatAmount(holdAmountKes(amount, fee), 'KES'),
      counterPostings,
      kind: 'transfer',
      metadata: { transferId: transfer.transferId },
    });
  }
}
