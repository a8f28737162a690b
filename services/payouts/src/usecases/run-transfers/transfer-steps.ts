/**
 * The time-driven steps of a transfer, run by the durable scheduler:
 * - creating past its lease: the create died midway; its hold is voided, its
 *   cap usage released and the row removed (the key is free again);
 * - awaiting_confirmation past the code's expiry: the confirmation is marked
 *   expired first (so a late code is refused), then the hold is voided and the
 *   cap released, then the transfer reads `expired` and confirmation.expired
 *   is enqueued in the same transaction. Each step is safe to run again.
 */
import { enqueueEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import { releaseCapIdempotently, voidHoldIdempotently } from '../../adapters/peers/holds';
import type { LedgerApi, TradingLimitsApi } from '../../adapters/peers/peers';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type { TransferRecord, TransfersRepository } from '../../persistence/transfers.repository';
import { lapseConfirmation } from '../lapse-confirmation';

export interface TransferStepsDependencies {
  dataSource: DataSource;
  transfers: TransfersRepository;
  confirmations: ConfirmationsRepository;
  ledger: Pick<LedgerApi, 'voidHold' | 'getHold'>;
  trading: TradingLimitsApi;
  logger: Logger;
}

export class TransferSteps {
  constructor(private readonly deps: TransferStepsDependencies) {}

  async run(transfer: TransferRecord): Promise<void> {
    if (transfer.status === 'creating') return this.abandon(transfer);
    if (transfer.status === 'awaiting_confirmation') return this.expire(transfer);
  }

  private async giveBack(transfer: TransferRecord): Promise<void> {
    await voidHoldIdempotently(this.deps.ledger, transfer.transferId);
    await releaseCapIdempotently(this.deps.trading, transfer.transferId);
  }

  private async abandon(transfer: TransferRecord): Promise<void> {
    await this.giveBack(transfer);
    await this.deps.transfers.deleteCreating(this.deps.dataSource.manager, transfer.transferId);
    this.deps.logger.warn('abandoned transfer create undone', { transferId: transfer.transferId });
  }

  private async expire(transfer: TransferRecord): Promise<void> {
    const confirmationId = transfer.confirmationId;
    if (!confirmationId) throw new Error(`transfer ${transfer.transferId} awaits confirmation without one`);
    const lapsed = await lapseConfirmation(
      this.deps.dataSource,
      this.deps.confirmations,
      { partnerId: transfer.partnerId, confirmationId },
      (manager, expiresAt) => this.deps.transfers.rescheduleExpiry(manager, confirmationId, expiresAt),
    );
    if (!lapsed) return;
    await this.giveBack(transfer);
    await withTransaction(this.deps.dataSource, async (manager) => {
      if (!(await this.deps.transfers.markExpired(manager, transfer.transferId))) return;
      await enqueueEvent(manager, {
        partnerId: transfer.partnerId,
        type: 'confirmation.expired',
        data: {
          confirmationId,
          subjectType: 'transfer',
          subjectId: transfer.transferId,
          expiredAt: new Date().toISOString(),
        },
      });
    });
    this.deps.logger.info('transfer expired: code not confirmed in time', {
      transferId: transfer.transferId,
      confirmationId,
    });
  }
}
