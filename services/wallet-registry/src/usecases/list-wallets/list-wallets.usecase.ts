import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import type { Wallet } from '../../domain/wallet';
import type { WalletsRepository } from '../../persistence/wallets.repository';

/** The partner's wallets, newest first; revoked ones are gone for good. */
export class ListWalletsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly wallets: WalletsRepository,
  ) {}

  async execute(command: { partnerId: string }): Promise<Wallet[]> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    return this.wallets.listLive(this.dataSource.manager, command.partnerId);
  }
}
