import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Logger, maskEmail } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { parseAdminEmail, parseAdminName } from '../../domain/admin-email';
import { receivesCodesFrom } from '../../domain/code-eligibility';
import type { AdminNoticesRepository } from '../../persistence/admin-notices.repository';
import type { Administrator, AdministratorsRepository } from '../../persistence/administrators.repository';
import type { PartnerSettingsRepository } from '../../persistence/partner-settings.repository';

export interface RegisterAdminCommand {
  partnerId: string;
  email: string;
  name: string;
}

export interface RegisterAdminSettings {
  /** The administrators' waiting period, already scaled by SANDBOX_TIME_SCALE in sandbox mode. */
  waitingPeriodMs: number;
  now: () => Date;
}

/**
 * Registers an administrator on the partner's configured domain. The same
 * e-mail again, while active, returns the existing administrator unchanged
 * (created false): registering is idempotent, never a duplicate. A new
 * administrator may receive codes only after the waiting period, unless the
 * partner has no other; in the same transaction every active administrator,
 * the new one included, gets a notice of the addition (sent afterwards).
 */
export class RegisterAdminUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repositories: {
      settings: PartnerSettingsRepository;
      admins: AdministratorsRepository;
      notices: AdminNoticesRepository;
    },
    private readonly settings: RegisterAdminSettings,
    private readonly logger: Logger,
  ) {}

  async execute(command: RegisterAdminCommand): Promise<{ admin: Administrator; created: boolean }> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const partner = await this.repositories.settings.find(command.partnerId);
    if (!partner) throw new AppError('PARTNER_NOT_FOUND');
    const email = parseAdminEmail(command.email, partner.adminDomain);
    const name = parseAdminName(command.name);
    const bad = [...(email ? [] : ['email']), ...(name ? [] : ['name'])];
    if (!email || !name || bad.length > 0) throw validationFailed(bad);
    const result = await withTransaction(this.dataSource, async (manager) => {
      // One change of the partner's administrators at a time: the first-administrator rule reads a stable list.
      await this.repositories.settings.lock(manager, command.partnerId);
      const active = await this.repositories.admins.listActive(manager, command.partnerId);
      const from = receivesCodesFrom(this.settings.now(), active.length, this.settings.waitingPeriodMs);
      const registered = await this.repositories.admins.insertOrFindActive(manager, {
        partnerId: command.partnerId,
        email,
        name,
        receivesCodesFrom: from,
      });
      if (registered.created) {
        await recordAudit(manager, {
          action: 'administrator.added',
          partnerId: command.partnerId,
          details: { adminId: registered.admin.adminId, email: maskEmail(email) },
        });
        await this.repositories.notices.enqueue(manager, {
          partnerId: command.partnerId,
          change: 'added',
          adminId: registered.admin.adminId,
          recipientAdminIds: [...active.map((admin) => admin.adminId), registered.admin.adminId],
        });
      }
      return registered;
    });
    if (result.created) {
      this.logger.info('administrator registered', {
        adminId: result.admin.adminId,
        receivesCodesFrom: result.admin.receivesCodesFrom.toISOString(),
      });
    }
    return result;
  }
}
