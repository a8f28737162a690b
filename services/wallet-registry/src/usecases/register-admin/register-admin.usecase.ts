import { AppError, validationFailed } from '@platform/errors';
import { Logger, maskEmail } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { parseAdminEmail, parseAdminName } from '../../domain/admin-email';
import { isUuid } from '../../domain/ids';
import type { Administrator, AdministratorsRepository } from '../../persistence/administrators.repository';
import type { PartnerSettingsRepository } from '../../persistence/partner-settings.repository';

export interface RegisterAdminCommand {
  partnerId: string;
  email: string;
  name: string;
}

/**
 * Registers an administrator on the partner's configured domain. The same
 * e-mail again, while active, returns the existing administrator unchanged
 * (created false): registering is idempotent, never a duplicate.
 */
export class RegisterAdminUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: PartnerSettingsRepository,
    private readonly admins: AdministratorsRepository,
    private readonly logger: Logger,
  ) {}

  async execute(command: RegisterAdminCommand): Promise<{ admin: Administrator; created: boolean }> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const settings = await this.settings.find(command.partnerId);
    if (!settings) throw new AppError('PARTNER_NOT_FOUND');
    const email = parseAdminEmail(command.email, settings.adminDomain);
    const name = parseAdminName(command.name);
    const bad = [...(email ? [] : ['email']), ...(name ? [] : ['name'])];
    if (!email || !name || bad.length > 0) throw validationFailed(bad);
    const result = await withTransaction(this.dataSource, async (manager) => {
      const registered = await this.admins.insertOrFindActive(manager, { partnerId: command.partnerId, email, name });
      if (registered.created) {
        await recordAudit(manager, { action: 'administrator.added', partnerId: command.partnerId, details: { adminId: registered.admin.adminId, email: maskEmail(email) } });
      }
      return registered;
    });
    if (result.created) this.logger.info('administrator registered', { adminId: result.admin.adminId });
    return result;
  }
}
