import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import type { WalletCodesRepository } from '../../persistence/wallet-codes.repository';
import type { WalletsRepository } from '../../persistence/wallets.repository';

/**
 * Revokes a wallet: immediate (the release-time check sees it at once) and
 * irreversible; its live code lapses with it. The address may be registered
 * again afterwards, as a new wallet.
 */
export class RevokeWalletUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repositories: { wallets: WalletsRepository; codes: WalletCodesRepository },
    private readonly logger: Logger,
  ) {}

  async execute(command: { partnerId: string; walletId: string }): Promise<void> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    if (!isUuid(command.walletId)) throw new AppError('WALLET_NOT_FOUND');
    await withTransaction(this.dataSource, async (manager) => {
      if (!(await this.repositories.wallets.revoke(manager, command.partnerId, command.walletId)))
        throw new AppError('WALLET_NOT_FOUND');
      await this.repositories.codes.lapseForWallet(manager, command.walletId);
      await recordAudit(manager, {
        action: 'wallet.revoked',
        partnerId: command.partnerId,
        details: { walletId: command.walletId },
      });
    });
    this.logger.info('wallet revoked', { walletId: command.walletId });
  }
}
