import { FormattedPartnerProfile, parsePartnerProfile, PartnerProfile, PartnerProfileInput } from '../../domain/partner-profile';

/**
 * Operator action: sets a partner's whole trading profile (status, funding
 * modes, fee schedule, caps). Every field is required and checked; the
 * operator tool supplies the defaults. Idempotent: the same profile twice is
 * the same row.
 */
export class ConfigurePartnerUseCase {
  constructor(private readonly profiles: { upsert(profile: PartnerProfile): Promise<FormattedPartnerProfile> }) {}

  async execute(command: PartnerProfileInput): Promise<FormattedPartnerProfile> {
    return this.profiles.upsert(parsePartnerProfile(command));
  }
}
