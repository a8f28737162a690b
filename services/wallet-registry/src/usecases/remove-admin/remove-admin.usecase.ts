import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { isUuid } from '../../domain/ids';
import type { AdministratorsRepository } from '../../persistence/administrators.repository';
import type { WalletCodesRepository } from '../../persistence/wallet-codes.repository';

/**
 * Removes an administrator and, in the same transaction, lapses every live
 * approval code sent to them: a later confirm answers WALLET_CODE_EXPIRED.
 */
export class RemoveAdminUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly admins: AdministratorsRepository,
    private readonly codes: WalletCodesRepository,
    private readonly logger: Logger,
  ) {}

  async execute(command: { partnerId: string; adminId: string }): Promise<void> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    if (!isUuid(command.adminId)) throw new AppError('ADMIN_NOT_FOUND');
    const lapsedCodes = await withTransaction(this.dataSource, async (manager) => {
      const removed = await this.admins.remove(manager, command.partnerId, command.adminId);
      if (!removed) throw new AppError('ADMIN_NOT_FOUND');
      await recordAudit(manager, { action: 'administrator.removed', partnerId: command.partnerId, details: { adminId: command.adminId } });
      return this.codes.lapseForAdmin(manager, command.adminId);
    });
    this.logger.info('administrator removed', { adminId: command.adminId, lapsedCodes });
  }
}
