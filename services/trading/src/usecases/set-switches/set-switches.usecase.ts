/** Operator actions: suspend or resume a partner, and set a platform switch. */
import { AppError, validationFailed } from '@platform/errors';
import type { DataSource } from '@platform/persistence';
import { queryRows } from '@platform/persistence';
import { parseSwitch } from '../../domain/platform-switches';
import { PARTNER_STATUSES, UUID_PATTERN } from '../../domain/partner-profile';
import type { PlatformSwitchesRepository } from '../../persistence/platform-switches.repository';

export class SetPartnerStatusUseCase {
  constructor(private readonly dataSource: DataSource) {}

  async execute(command: { partnerId: string; status: string }): Promise<{ partnerId: string; status: string }> {
    const bad: string[] = [];
    if (!UUID_PATTERN.test(command.partnerId)) bad.push('partnerId');
    if (!(PARTNER_STATUSES as readonly string[]).includes(command.status)) bad.push('status');
    if (bad.length > 0) throw validationFailed(bad);
    const [row] = await queryRows<{ status: string }>(
      this.dataSource.manager,
      'UPDATE partner_profiles SET status = $2, updated_at = now() WHERE partner_id = $1 RETURNING status',
      [command.partnerId, command.status],
    );
    if (!row) throw new AppError('PARTNER_NOT_FOUND');
    return { partnerId: command.partnerId, status: row.status };
  }
}

export class SetPlatformSwitchUseCase {
  constructor(private readonly switches: PlatformSwitchesRepository) {}

  async execute(command: { name: string; value: string }): Promise<{ name: string; value: string }> {
    const parsed = parseSwitch(command.name, command.value);
    await this.switches.set(parsed.name, parsed.value);
    return parsed;
  }
}
