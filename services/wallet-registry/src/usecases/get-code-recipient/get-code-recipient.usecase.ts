import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import { chooseCodeRecipient } from '../../domain/code-eligibility';
import type { Administrator, AdministratorsRepository } from '../../persistence/administrators.repository';

/**
 * The person who receives the partner's codes, by the one rule shared with
 * wallet codes: the earliest-registered active administrator whose waiting
 * period has ended. Payouts asks here for its confirmation codes, so the rule
 * lives in one place. NO_ADMINISTRATOR_REGISTERED when nobody may receive them.
 */
export class GetCodeRecipientUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly admins: AdministratorsRepository,
    private readonly now: () => Date,
  ) {}

  async execute(command: { partnerId: string }): Promise<Administrator> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const active = await this.admins.listActive(this.dataSource.manager, command.partnerId);
    const recipient = chooseCodeRecipient(active, this.now());
    if (!recipient) throw new AppError('NO_ADMINISTRATOR_REGISTERED');
    return recipient;
  }
}
