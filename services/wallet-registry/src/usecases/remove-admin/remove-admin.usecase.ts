import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { removalRefusal } from '../../domain/code-eligibility';
import type { AdminNoticesRepository } from '../../persistence/admin-notices.repository';
import type { AdministratorsRepository } from '../../persistence/administrators.repository';
import type { PartnerSettingsRepository } from '../../persistence/partner-settings.repository';
import type { WalletCodesRepository } from '../../persistence/wallet-codes.repository';

/**
 * Removes an administrator and, in the same transaction, lapses every live
 * approval code sent to them (a later confirm answers WALLET_CODE_EXPIRED) and
 * writes a notice of the removal to every administrator active before it, the
 * removed one included. The last administrator who may receive codes is never
 * removed (ADMIN_LAST_CODE_RECIPIENT): a partner is never left without one, and
 * a credential alone cannot hand the codes to an administrator it just added.
 */
export class RemoveAdminUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repositories: {
      settings: PartnerSettingsRepository;
      admins: AdministratorsRepository;
      codes: WalletCodesRepository;
      notices: AdminNoticesRepository;
    },
    private readonly now: () => Date,
    private readonly logger: Logger,
  ) {}

  async execute(command: { partnerId: string; adminId: string }): Promise<void> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    if (!isUuid(command.adminId)) throw new AppError('ADMIN_NOT_FOUND');
    const { partnerId, adminId } = command;
    const lapsedCodes = await withTransaction(this.dataSource, async (manager) => {
      // One change of the partner's administrators at a time: two removals cannot both see the other's recipient remain.
      await this.repositories.settings.lock(manager, partnerId);
      const active = await this.repositories.admins.listActive(manager, partnerId);
      const refusal = removalRefusal(active, adminId, this.now());
      if (refusal) throw new AppError(refusal);
      if (!(await this.repositories.admins.remove(manager, partnerId, adminId))) throw new AppError('ADMIN_NOT_FOUND');
      await recordAudit(manager, { action: 'administrator.removed', partnerId, details: { adminId } });
      await this.repositories.notices.enqueue(manager, {
        partnerId,
        change: 'removed',
        adminId,
        recipientAdminIds: active.map((admin) => admin.adminId),
      });
      return this.repositories.codes.lapseForAdmin(manager, adminId);
    });
    this.logger.info('administrator removed', { adminId, lapsedCodes });
  }
}
