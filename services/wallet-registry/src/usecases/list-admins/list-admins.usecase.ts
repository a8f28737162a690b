import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import type { Administrator, AdministratorsRepository } from '../../persistence/administrators.repository';

/** The partner's active administrators, earliest registered first. */
export class ListAdminsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly admins: AdministratorsRepository,
  ) {}

  async execute(command: { partnerId: string }): Promise<Administrator[]> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    return this.admins.listActive(this.dataSource.manager, command.partnerId);
  }
}
