/**
 * The steps that drive a payout instruction through the bank; the payout
 * worker (src/workers/payout.worker.ts) claims due instructions and runs each
 * one's next step here:
 * - pending: resolve the destination from the ledger (not active → failed
 *   PAYOUT_ACCOUNT_NOT_PAYABLE), submit to the bank (refused → failed with
 *   the bank's code, e.g. TRANSFER_NAME_MISMATCH when its check of a
 *   transfer's beneficiary name fails; accepted → submitted);
 * - submitted: read the bank's status (settled / failed / still pending).
 * A step repeated after a crash is safe: the bank is idempotent on the
 * instruction id, and completions only move non-final rows. Every commit of a
 * step (submitted, rescheduled, completed) is fenced by the step's lease, and
 * so are the bank's submission and the hold's resolution, made inside the
 * fenced transaction (the row locked while the token holds): a replica whose
 * lease passed to another (it stalled past the lease) sends nothing, moves no
 * money and commits nothing. A bank that does not answer (the submit throws)
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
import type { EntityManager, StepLease } from '@platform/persistence';
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
    await lease.commit((manager) => this.finishFenced(manager, instruction, outcome));
  }

  /** The instruction's outcome (and its transfer's, hold resolved), inside a transaction behind its fence. */
  private async finishFenced(
    manager: EntityManager,
    instruction: InstructionRecord,
    outcome: BankOutcome,
  ): Promise<void> {
    if (instruction.transferId) return this.deps.transferOutcomes.finishFenced(manager, instruction, outcome);
    await this.deps.instructions.complete(instruction.instructionId, outcome, manager);
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
    // The bank is asked behind the fence, the instruction's row locked: an owner whose lease
    // passed sends nothing, and no other replica can take the row while the bank is asked.
    await lease.commit(async (manager) => {
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
        return this.finishFenced(manager, instruction, { status: 'failed', failureCode: answer.failureCode });
      }
      await this.deps.instructions.markSubmitted(
        instruction.instructionId,
        answer.providerReference,
        submittedAt,
        new Date(submittedAt.getTime() + this.options.statusPollMs),
        manager,
      );
    });
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
