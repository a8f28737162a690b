/**
 * Expires open collections past their lifetime, a bounded batch per step,
 * skipping rows a deposit is being recorded against (that deposit then sees
 * the lifetime has passed and is returned to the payer).
 */
import type { Logger } from '@platform/logger';
import { DataSource, withTransaction } from '@platform/persistence';
import type { CollectionsRepository } from '../../persistence/collections.repository';

export class ExpireCollectionsUseCase {
  constructor(
    private readonly deps: {
      dataSource: DataSource;
      collections: CollectionsRepository;
      logger: Logger;
      batchSize: number;
    },
  ) {}

  async execute(): Promise<number> {
    const expired = await withTransaction(this.deps.dataSource, (manager) =>
      this.deps.collections.expireDue(manager, this.deps.batchSize),
    );
    if (expired > 0) this.deps.logger.info('collections expired', { count: expired });
    return expired;
  }

  /** Sandbox clock: ends the lifetime of one open collection now; the next step expires it. */
  async endLifetimeNow(collectionId: string): Promise<void> {
    await withTransaction(this.deps.dataSource, (manager) =>
      this.deps.collections.endLifetimeNow(manager, collectionId),
    );
  }
}
