/** Operator actions: suspend or resume a partner, and set a platform switch; each audited with the change. */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { parseSwitch } from '../../domain/platform-switches';
import { PARTNER_STATUSES } from '../../domain/partner-profile';
import type { PartnerProfilesRepository } from '../../persistence/partner-profiles.repository';
import type { PlatformSwitchesRepository } from '../../persistence/platform-switches.repository';

export class SetPartnerStatusUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly profiles: PartnerProfilesRepository,
  ) {}

  async execute(command: { partnerId: string; status: string }): Promise<{ partnerId: string; status: string }> {
    const bad: string[] = [];
    if (!isUuid(command.partnerId)) bad.push('partnerId');
    if (!(PARTNER_STATUSES as readonly string[]).includes(command.status)) bad.push('status');
    if (bad.length > 0) throw validationFailed(bad);
    const status = await withTransaction(this.dataSource, async (manager) => {
      const stored = await this.profiles.setStatus(manager, command.partnerId, command.status);
      if (stored === null) throw new AppError('PARTNER_NOT_FOUND');
      await recordAudit(manager, {
        action: stored === 'suspended' ? 'partner.suspended' : 'partner.resumed',
        partnerId: command.partnerId,
      });
      return stored;
    });
    return { partnerId: command.partnerId, status };
  }
}

export class SetPlatformSwitchUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly switches: PlatformSwitchesRepository,
  ) {}

  async execute(command: { name: string; value: string }): Promise<{ name: string; value: string }> {
    const parsed = parseSwitch(command.name, command.value);
    await withTransaction(this.dataSource, async (manager) => {
      await this.switches.set(parsed.name, parsed.value, manager);
      await recordAudit(manager, {
        action: 'platform_switch.set',
        partnerId: null,
        details: { name: parsed.name, value: parsed.value },
      });
    });
    return parsed;
  }
}
