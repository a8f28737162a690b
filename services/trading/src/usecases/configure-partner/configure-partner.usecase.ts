import { DataSource, EntityManager, recordAudit, withTransaction } from '@platform/persistence';
import {
  FormattedPartnerProfile,
  parsePartnerProfile,
  PartnerProfile,
  PartnerProfileInput,
} from '../../domain/partner-profile';

/**
 * Operator action: sets a partner's whole trading profile (status, funding
 * modes, fee schedule, caps). Every field is required and checked; the
 * operator tool supplies the defaults. Idempotent: the same profile twice is
 * the same row. Each call is audited with the profile it set.
 */
export class ConfigurePartnerUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly profiles: {
      upsert(profile: PartnerProfile, manager: EntityManager): Promise<FormattedPartnerProfile>;
    },
  ) {}

  async execute(command: PartnerProfileInput): Promise<FormattedPartnerProfile> {
    const profile = parsePartnerProfile(command);
    return withTransaction(this.dataSource, async (manager) => {
      const saved = await this.profiles.upsert(profile, manager);
      const { partnerId, feeCapKes, ...terms } = saved;
      await recordAudit(manager, {
        action: 'partner_profile.configured',
        partnerId,
        details: { ...terms, feeCapKes: feeCapKes ?? 'none' },
      });
      return saved;
    });
  }
}
