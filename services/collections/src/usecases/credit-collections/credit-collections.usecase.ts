/**
 * The durable step driver that credits received collections. The collection
 * row is the state: `received` (or `crediting` whose lease ran out) rows are
 * claimed with FOR UPDATE SKIP LOCKED and leased, so replicas share the work
 * without doing it twice at once; the ledger entry is posted outside any
 * transaction under the caller-made entry id (idempotent in the ledger, so a
 * retry after a lost answer posts nothing more); then, in one transaction, the
 * row moves crediting → credited and collection.received is written to the
 * outbox. That move happens once (guarded on the status), so the event fires
 * exactly once per collection. A ledger outage leaves the row in `crediting`
 * and the step is retried with backoff until it succeeds.
 */
import { enqueueEvent } from '@platform/events';
import { isAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { DataSource, withTransaction } from '@platform/persistence';
import type { LedgerCredits } from '../../adapters/ledger.adapter';
import type { CollectionRecord } from '../../domain/collection';
import type { CollectionsRepository } from '../../persistence/collections.repository';

/** Longer than the three ledger calls of one credit can take at their deadlines. */
export const CREDIT_LEASE_MS = 60_000;
export const RETRY_DELAY_MS_BASE = 1_000;
export const RETRY_DELAY_MS_MAX = 60_000;
const RETRY_EXPONENT_MAX = 16;
const ERROR_TEXT_LENGTH_MAX = 200;

/** collection.received `data`, exactly the fields partners receive. */
export interface CollectionReceivedData {
  collectionId: string;
  reference: string;
  gross: string;
  fee: string;
  net: string;
  currency: 'USD';
  senderName: string | null;
  treasuryCreditTxId: string;
}

export function retryDelayMs(attempts: number): number {
  return Math.min(
    RETRY_DELAY_MS_MAX,
    RETRY_DELAY_MS_BASE * 2 ** Math.min(RETRY_EXPONENT_MAX, Math.max(0, attempts - 1)),
  );
}

export class CreditCollectionsUseCase {
  constructor(
    private readonly deps: {
      dataSource: DataSource;
      collections: CollectionsRepository;
      ledger: LedgerCredits;
      logger: Logger;
      batchSize: number;
    },
  ) {}

  /** One step: claims up to batchSize due collections (or just `onlyId`) and credits each. Returns how many were credited. */
  async execute(onlyId?: string): Promise<number> {
    const claimed = await withTransaction(this.deps.dataSource, (manager) =>
      this.deps.collections.claimDueForCredit(manager, this.deps.batchSize, CREDIT_LEASE_MS, onlyId),
    );
    let credited = 0;
    for (const collection of claimed) {
      if (await this.creditOne(collection)) credited += 1;
    }
    return credited;
  }

  private async creditOne(collection: CollectionRecord): Promise<boolean> {
    const attempts = await this.attemptsOf(collection);
    let entryId: string;
    try {
      entryId = await this.deps.ledger.credit({
        entryId: collection.creditEntryId!,
        partnerId: collection.partnerId,
        collectionId: collection.id,
        reference: collection.reference,
        grossAmount: collection.grossAmount!,
        feeAmount: collection.feeAmount!,
        netAmount: collection.netAmount!,
      });
    } catch (error) {
      const reason = isAppError(error) ? error.code : (error as Error).message;
      this.deps.logger.warn('collection credit failed; will retry', { collectionId: collection.id, reason, attempts });
      await withTransaction(this.deps.dataSource, (manager) =>
        this.deps.collections.recordStepFailure(
          manager,
          collection.id,
          retryDelayMs(attempts),
          reason.slice(0, ERROR_TEXT_LENGTH_MAX),
        ),
      );
      return false;
    }
    return this.finish(collection, entryId);
  }

  private async attemptsOf(collection: CollectionRecord): Promise<number> {
    return this.deps.collections.stepAttempts(this.deps.dataSource.manager, collection.id);
  }

  private async finish(collection: CollectionRecord, entryId: string): Promise<boolean> {
    return withTransaction(this.deps.dataSource, async (manager) => {
      const now = new Date();
      if (!(await this.deps.collections.markCredited(manager, collection.id, now))) return false;
      await enqueueEvent<CollectionReceivedData>(manager, {
        partnerId: collection.partnerId,
        type: 'collection.received',
        createdAt: now,
        data: {
          collectionId: collection.id,
          reference: collection.reference,
          gross: collection.grossAmount!,
          fee: collection.feeAmount!,
          net: collection.netAmount!,
          currency: 'USD',
          senderName: collection.senderName,
          treasuryCreditTxId: entryId,
        },
      });
      this.deps.logger.info('collection credited', { collectionId: collection.id, entryId });
      return true;
    });
  }
}
