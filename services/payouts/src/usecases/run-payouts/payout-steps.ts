/**
 * The steps that drive a payout instruction through the bank; the payout
 * worker (src/workers/payout.worker.ts) claims due instructions and runs each
 * one's next step here:
 * - pending: resolve the destination from the ledger (not active → failed
 *   PAYOUT_ACCOUNT_NOT_PAYABLE), submit to the bank (refused → failed with
 *   the bank's code, e.g. TRANSFER_NAME_MISMATCH when its check of a
 *   transfer's beneficiary name fails; accepted → submitted);
 * - submitted: read the bank's status (settled / failed / still pending).
 * No call to the bank or the ledger is made inside a transaction: each is
 * made first, idempotent on a key stable per step (the bank on the
 * instruction id, the ledger's post or void on the hold id, the transfer's),
 * and only its result is committed, in one short transaction fenced by the
 * step's lease (the row's timer must still read this owner's token). An owner
 * that stalled past its lease may have made the call, but its commit fails
 * and it does nothing more; the new owner makes the same call with the same
 * key, is answered alike, and commits once, so nothing is paid or posted
 * twice. An outcome that resolves a hold is always the bank's (a transfer's
 * destination is its own), so any owner resolves the hold the same way; a
 * failure decided here (an order's destination no longer payable) resolves
 * no hold. A bank that does not answer (the submit throws)
 * is asked again, with the same reference, when the lease passes; one that is unreachable (SERVICE_UNAVAILABLE) makes the
 * worker give the instruction back at once for a replica with a healthy path.
 * A transfer's instruction takes its destination from the transfer and
 * resolves its hold on completion (TransferOutcomes). Instructions without an
 * answer past `stuckAfterMs` are logged as a warning (reportStuck; listed by
 * `ops payouts stuck`).
 */
import { isAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { BankAdapter } from '../../adapters/bank/bank';
import type { InstructionRecord, PayoutInstructionsRepository } from '../../persistence/payout-instructions.repository';
import type { StepLease } from '@platform/persistence';
import type { BankOutcome, TransferOutcomes } from './transfer-outcomes';
import type { LedgerApi, LedgerPayoutDestination } from '../../adapters/peers/peers';

/** Stuck instructions named per warning at most. */
const STUCK_LISTED_MAX = 20;

export interface PayoutStepsOptions {
  /** How soon a submitted transfer's status is read again. */
  statusPollMs: number;
  /** An instruction without a bank answer this long after it was handed over is reported as stuck. */
  stuckAfterMs: number;
}

export class PayoutSteps {
  constructor(
    private readonly deps: {
      instructions: PayoutInstructionsRepository;
      ledger: Pick<LedgerApi, 'getPayoutDestination'>;
      bank: BankAdapter;
      transferOutcomes: TransferOutcomes;
      logger: Logger;
    },
    private readonly options: PayoutStepsOptions,
  ) {}

  /** The instruction's next step: submit a pending one, read a submitted one's status. */
  async run(instruction: InstructionRecord, lease: StepLease): Promise<void> {
    if (instruction.status === 'pending') return this.submit(instruction, lease);
    if (instruction.status === 'submitted') return this.poll(instruction, lease);
  }

  /** Logs the instructions without a bank answer past the stuck bound, if any. */
  async reportStuck(): Promise<void> {
    const stuck = await this.deps.instructions.listStuck(this.options.stuckAfterMs, STUCK_LISTED_MAX);
    if (stuck.length === 0) return;
    this.deps.logger.warn('payout instructions without a bank answer past the stuck bound; see `ops payouts stuck`', {
      count: stuck.length,
      instructionIds: stuck.map((instruction) => instruction.instructionId),
      stuckAfterMs: this.options.stuckAfterMs,
    });
  }

  private async finish(instruction: InstructionRecord, outcome: BankOutcome, lease: StepLease): Promise<void> {
    if (instruction.transferId) return this.deps.transferOutcomes.finish(instruction, outcome, lease);
    await lease.commit((manager) => this.deps.instructions.complete(instruction.instructionId, outcome, manager));
  }

  private async destinationOf(
    instruction: InstructionRecord,
    lease: StepLease,
  ): Promise<
    Pick<LedgerPayoutDestination, 'rail' | 'accountNumber' | 'accountName' | 'bankCode' | 'status'> | 'failed'
  > {
    if (instruction.transferId) {
      const transfer = await this.deps.transferOutcomes.transferOf(instruction);
      return {
        rail: transfer.rail,
        accountNumber: transfer.accountNumber,
        accountName: transfer.accountName,
        bankCode: transfer.bankCode ?? undefined,
        status: 'active',
      };
    }
    return this.orderDestination(instruction, lease);
  }

  private async submit(instruction: InstructionRecord, lease: StepLease): Promise<void> {
    const destination = await this.destinationOf(instruction, lease);
    if (destination === 'failed') return;
    if (destination.status !== 'active')
      return this.finish(instruction, { status: 'failed', failureCode: 'PAYOUT_ACCOUNT_NOT_PAYABLE' }, lease);
    if (!lease.held) return; // another replica has the instruction now, and submits it itself
    // Asked outside any transaction: the bank pays an instruction id once and answers a repeat alike,
    // so an owner whose lease passed meanwhile sends nothing new, and its commit below fails.
    const submittedAt = new Date();
    const answer = await this.deps.bank.submit({
      reference: instruction.instructionId,
      rail: destination.rail,
      accountNumber: destination.accountNumber,
      accountName: destination.accountName,
      bankCode: destination.bankCode ?? null,
      amountKes: instruction.amountKes,
      checkAccountName: instruction.transferId !== null,
    });
    if (answer.outcome === 'rejected') {
      this.deps.logger.info('bank refused a payout', {
        instructionId: instruction.instructionId,
        failureCode: answer.failureCode,
      });
      return this.finish(instruction, { status: 'failed', failureCode: answer.failureCode }, lease);
    }
    await lease.commit((manager) =>
      this.deps.instructions.markSubmitted(
        instruction.instructionId,
        answer.providerReference,
        submittedAt,
        new Date(submittedAt.getTime() + this.options.statusPollMs),
        manager,
      ),
    );
  }

  private async orderDestination(
    instruction: InstructionRecord,
    lease: StepLease,
  ): Promise<LedgerPayoutDestination | 'failed'> {
    let destination: LedgerPayoutDestination;
    try {
      destination = await this.deps.ledger.getPayoutDestination({
        id: instruction.payoutDestinationId,
        partnerId: instruction.partnerId,
      });
    } catch (error) {
      if (!(isAppError(error) && error.code === 'PAYOUT_ACCOUNT_NOT_FOUND')) throw error;
      await this.finish(instruction, { status: 'failed', failureCode: 'PAYOUT_ACCOUNT_NOT_FOUND' }, lease);
      return 'failed';
    }
    return destination;
  }

  private async poll(instruction: InstructionRecord, lease: StepLease): Promise<void> {
    const status = await this.deps.bank.status({
      providerReference: instruction.providerReference!,
      submittedAt: new Date(instruction.submittedAt!),
    });
    if (status.status === 'pending')
      return lease.commit((manager) =>
        this.deps.instructions.reschedule(
          instruction.instructionId,
          new Date(Date.now() + this.options.statusPollMs),
          manager,
        ),
      );
    await this.finish(instruction, status, lease);
  }
}
