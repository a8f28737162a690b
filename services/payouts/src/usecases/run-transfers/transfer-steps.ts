/**
 * The time-driven steps of a transfer, run by the durable scheduler: an
 * abandoned create undone, or a lapsed code expired, exactly as for a USDT
 * send (usecases/shared/unconfirmed-steps.ts). Once confirmed, a transfer
 * reaches the bank as a payout instruction (usecases/run-payouts).
 */
import type { TransferRecord, TransfersRepository } from '../../persistence/transfers.repository';
import { UnconfirmedSteps, UnconfirmedStepsDependencies } from '../shared/unconfirmed-steps';

export interface TransferStepsDependencies extends UnconfirmedStepsDependencies {
  transfers: TransfersRepository;
}

export class TransferSteps {
  private readonly unconfirmed: UnconfirmedSteps<TransferRecord>;

  constructor(deps: TransferStepsDependencies) {
    this.unconfirmed = new UnconfirmedSteps(deps, {
      rows: deps.transfers,
      subjectType: 'transfer',
      noun: 'transfer',
      idField: 'transferId',
      idOf: (transfer) => transfer.transferId,
    });
  }

  async run(transfer: TransferRecord): Promise<void> {
    if (transfer.status === 'creating') return this.unconfirmed.abandon(transfer);
    if (transfer.status === 'awaiting_confirmation') return this.unconfirmed.expire(transfer);
  }
}
