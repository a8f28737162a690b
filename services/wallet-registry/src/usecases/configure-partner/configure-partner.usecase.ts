import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { parsePartnerSettings, PartnerSettings } from '../../domain/partner-settings';
import type { PartnerSettingsRepository } from '../../persistence/partner-settings.repository';

/** Operator action: sets (or changes) the e-mail domain of a partner's administrators; audited with the domain set. */
export class ConfigurePartnerUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: PartnerSettingsRepository,
  ) {}

  async execute(command: { partnerId: string; adminDomain: string }): Promise<PartnerSettings> {
    const parsed = parsePartnerSettings(command);
    return withTransaction(this.dataSource, async (manager) => {
      const saved = await this.settings.upsert(parsed, manager);
      await recordAudit(manager, {
        action: 'admin_domain.configured',
        partnerId: saved.partnerId,
        details: { adminDomain: saved.adminDomain },
      });
      return saved;
    });
  }
}
