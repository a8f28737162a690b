import { parsePartnerSettings, PartnerSettings } from '../../domain/partner-settings';
import type { PartnerSettingsRepository } from '../../persistence/partner-settings.repository';

/** Operator action: sets (or changes) the e-mail domain of a partner's administrators. */
export class ConfigurePartnerUseCase {
  constructor(private readonly settings: PartnerSettingsRepository) {}

  async execute(command: { partnerId: string; adminDomain: string }): Promise<PartnerSettings> {
    return this.settings.upsert(parsePartnerSettings(command));
  }
}
