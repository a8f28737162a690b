/**
 * Drives payout instructions through the bank: every replica polls for due
 * instructions, claims a bounded batch (FOR UPDATE SKIP LOCKED, leased by
 * moving the timer ahead) and runs each one's next step:
 * - pending: resolve the destination from the ledger (not active → failed
 *   PAYOUT_ACCOUNT_NOT_PAYABLE), submit to the bank (refused → failed with
 *   the bank's code, e.g. TRANSFER_NAME_MISMATCH when its check of a
 *   transfer's beneficiary name fails; accepted → submitted);
 * - submitted: read the bank's status (settled / failed / still pending).
 * A step repeated after a crash is safe: the bank is idempotent on the
 * instruction id, and completions only move non-final rows. A bank that does
 * not answer (the submit throws) is asked again, with the same reference,
 * when the lease passes. A transfer's instruction takes its destination from
 * the transfer and resolves its hold on completion (TransferOutcomes).
 * Instructions without an answer past `stuckAfterMs` are logged as a warning
 * (and listed by `ops payouts stuck`). The runner reports as the `payout` worker
 * (@platform/metrics WorkerMetrics).
 */
import { isAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { WorkerMetrics } from '@platform/metrics';
import type { DataSource } from '@platform/persistence';
import { dueRowsProbe, withTransaction } from '@platform/persistence';
import type { BankAdapter } from '../../adapters/bank/bank';
import type { InstructionRecord, PayoutInstructionsRepository } from '../../persistence/payout-instructions.repository';
import type { BankOutcome, TransferOutcomes } from './transfer-outcomes';
import type { LedgerApi, LedgerPayoutDestination } from '../../adapters/peers/peers';

/** How often each replica looks for stuck instructions, and how many it names per warning. */
const STUCK_CHECK_INTERVAL_MS = 60_000;
const STUCK_LISTED_MAX = 20;

export interface PayoutRunnerOptions {
  intervalMs: number;
  batchSize: number;
  leaseMs: number;
  /** How soon a submitted transfer's status is read again. */
  statusPollMs: number;
  /** An instruction without a bank answer this long after it was handed over is reported as stuck. */
  stuckAfterMs: number;
}

export class PayoutRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastStuckCheckMs = 0;
  private readonly metrics = new WorkerMetrics('payout');
  private stopWatchingDue: (() => void) | null = null;

  constructor(
    private readonly deps: {
      dataSource: DataSource;
      instructions: PayoutInstructionsRepository;
      ledger: Pick<LedgerApi, 'getPayoutDestination'>;
      bank: BankAdapter;
      transferOutcomes: TransferOutcomes;
      logger: Logger;
    },
    private readonly options: PayoutRunnerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.stopWatchingDue ??= this.metrics.watchDue(dueRowsProbe(this.deps.dataSource, this.deps.instructions.dueRows));
    this.schedule(this.options.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWatchingDue?.();
    this.stopWatchingDue = null;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Runs a pass soon (a new instruction is due at once). */
  kick(): void {
    if (this.stopped || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  tick(): Promise<number> {
    return this.metrics.pass(async () => {
      const due = await withTransaction(this.deps.dataSource, (manager) =>
        this.deps.instructions.claimDue(manager, this.options.batchSize, this.options.leaseMs),
      );
      this.metrics.claimed(due.length);
      for (const instruction of due) {
        try {
          await this.step(instruction);
        } catch (error) {
          this.metrics.failed();
          this.deps.logger.error('payout step failed; retried when its lease passes', {
            instructionId: instruction.instructionId,
            error,
          });
        }
      }
      await this.reportStuck();
      return due.length;
    });
  }

  private async reportStuck(): Promise<void> {
    if (Date.now() - this.lastStuckCheckMs < STUCK_CHECK_INTERVAL_MS) return;
    this.lastStuckCheckMs = Date.now();
    const stuck = await this.deps.instructions.listStuck(this.options.stuckAfterMs, STUCK_LISTED_MAX);
    if (stuck.length === 0) return;
    this.deps.logger.warn('payout instructions without a bank answer past the stuck bound; see `ops payouts stuck`', {
      count: stuck.length,
      instructionIds: stuck.map((instruction) => instruction.instructionId),
      stuckAfterMs: this.options.stuckAfterMs,
    });
  }

  private async finish(instruction: InstructionRecord, outcome: BankOutcome): Promise<void> {
    if (instruction.transferId) return this.deps.transferOutcomes.finish(instruction, outcome);
    return this.deps.instructions.complete(instruction.instructionId, outcome);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.tick()
        .catch((error) => this.deps.logger.error('payout pass failed', { error }))
        .then((taken) => {
          this.running = null;
          this.schedule(taken === this.options.batchSize ? 0 : this.options.intervalMs);
        });
    }, delayMs);
  }

  private async step(instruction: InstructionRecord): Promise<void> {
    if (instruction.status === 'pending') return this.submit(instruction);
    if (instruction.status === 'submitted') return this.poll(instruction);
  }

  private async destinationOf(
    instruction: InstructionRecord,
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
    return this.orderDestination(instruction);
  }

  private async submit(instruction: InstructionRecord): Promise<void> {
    const destination = await this.destinationOf(instruction);
    if (destination === 'failed') return;
    if (destination.status !== 'active')
      return this.finish(instruction, { status: 'failed', failureCode: 'PAYOUT_ACCOUNT_NOT_PAYABLE' });
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
      return this.finish(instruction, { status: 'failed', failureCode: answer.failureCode });
    }
    await this.deps.instructions.markSubmitted(
      instruction.instructionId,
      answer.providerReference,
      submittedAt,
      new Date(submittedAt.getTime() + this.options.statusPollMs),
    );
  }

  private async orderDestination(instruction: InstructionRecord): Promise<LedgerPayoutDestination | 'failed'> {
    let destination: LedgerPayoutDestination;
    try {
      destination = await this.deps.ledger.getPayoutDestination({
        id: instruction.payoutDestinationId,
        partnerId: instruction.partnerId,
      });
    } catch (error) {
      if (!(isAppError(error) && error.code === 'PAYOUT_ACCOUNT_NOT_FOUND')) throw error;
      await this.finish(instruction, { status: 'failed', failureCode: 'PAYOUT_ACCOUNT_NOT_FOUND' });
      return 'failed';
    }
    return destination;
  }

  private async poll(instruction: InstructionRecord): Promise<void> {
    const status = await this.deps.bank.status({
      providerReference: instruction.providerReference!,
      submittedAt: new Date(instruction.submittedAt!),
    });
    if (status.status === 'pending')
      return this.deps.instructions.reschedule(
        instruction.instructionId,
        new Date(Date.now() + this.options.statusPollMs),
      );
    await this.finish(instruction, status);
  }
}
