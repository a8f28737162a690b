import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import { isActive, Wallet } from '../../domain/wallet';
import type { WalletsRepository } from '../../persistence/wallets.repository';

/**
 * The release-time check for payouts and trading: read straight from the
 * database (no cache), so a wallet revoked a moment ago answers inactive.
 */
export class GetWalletStatusUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly wallets: WalletsRepository,
  ) {}

  async execute(command: { partnerId: string; walletId: string }): Promise<{ wallet: Wallet; active: boolean }> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    if (!isUuid(command.walletId)) throw new AppError('WALLET_NOT_FOUND');
    const wallet = await this.wallets.find(this.dataSource.manager, command.partnerId, command.walletId);
    if (!wallet) throw new AppError('WALLET_NOT_FOUND');
    return { wallet, active: isActive(wallet.status) };
  }
}
