import { AppError, validationFailed } from '@platform/errors';
import type { DataSource } from '@platform/persistence';
import { isUuid } from '../../domain/ids';
import type { Administrator, AdministratorsRepository } from '../../persistence/administrators.repository';

/**
 * The person who receives the partner's codes, by the one rule shared with
 * wallet codes: the earliest-registered active administrator. Payouts asks
 * here for its confirmation codes, so the rule lives in one place.
 */
export class GetCodeRecipientUseCase {
  constructor(private readonly dataSource: DataSource, private readonly admins: AdministratorsRepository) {}

  async execute(command: { partnerId: string }): Promise<Administrator> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const recipient = await this.admins.firstActive(this.dataSource.manager, command.partnerId);
    if (!recipient) throw new AppError('NO_ADMINISTRATOR_REGISTERED');
    return recipient;
  }
}
