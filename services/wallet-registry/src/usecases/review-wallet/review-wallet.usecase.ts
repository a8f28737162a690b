import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { ReviewDecision, reviewOutcome, Wallet } from '../../domain/wallet';
import type { WalletsRepository } from '../../persistence/wallets.repository';

/**
 * The service's review of a wallet its administrator confirmed: approve makes
 * it active (screening cleared), reject makes it rejected (screening
 * rejected). Repeating the decision already taken is harmless and answers the
 * wallet; reviewing a wallet in any other state is WALLET_NOT_AWAITING_REVIEW.
 * The decision is audited with the change; a repeat records nothing.
 */
export class ReviewWalletUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly wallets: WalletsRepository,
    private readonly logger: Logger,
  ) {}

  async execute(command: { partnerId: string; walletId: string; decision: string }): Promise<Wallet> {
    const bad = [
      ...(isUuid(command.partnerId) ? [] : ['partnerId']),
      ...(isUuid(command.walletId) ? [] : ['walletId']),
    ];
    if (command.decision !== 'approve' && command.decision !== 'reject') bad.push('decision');
    if (bad.length > 0) throw validationFailed(bad);
    const outcome = reviewOutcome(command.decision as ReviewDecision);
    const wallet = await withTransaction(this.dataSource, async (manager) => {
      const current = await this.wallets.lockLive(manager, command.partnerId, command.walletId);
      if (!current) throw new AppError('WALLET_NOT_FOUND');
      if (current.status === outcome.status) return current;
      if (current.status !== 'pending_service_approval') throw new AppError('WALLET_NOT_AWAITING_REVIEW');
      const reviewed = await this.wallets.markReviewed(manager, current.walletId, outcome);
      await recordAudit(manager, {
        action: command.decision === 'approve' ? 'wallet.approved' : 'wallet.rejected',
        partnerId: command.partnerId,
        details: { walletId: current.walletId },
      });
      return reviewed;
    });
    this.logger.info('wallet reviewed', {
      walletId: wallet.walletId,
      decision: command.decision,
      status: wallet.status,
    });
    return wallet;
  }
}
