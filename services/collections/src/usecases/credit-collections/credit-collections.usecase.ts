/**
 * The durable step driver that credits received collections. The collection
 * row is the state: `received` (or `crediting` whose lease ran out) rows are
 * claimed with FOR UPDATE SKIP LOCKED and leased, so replicas share the work
 * without doing it twice at once; the ledger entry is posted outside any
 * transaction under the caller-made entry id (idempotent in the ledger, so a
 * retry after a lost answer posts nothing more); then, in one transaction, the
 * row moves crediting → credited and collection.received is written to the
 * outbox. That move happens once (guarded on the status), so the event fires
 * exactly once per collection. A ledger that refuses or fails leaves the row
 * in `crediting`, retried with backoff until it succeeds; a ledger that is
 * unavailable (did not answer, breaker open) gives the row and the rest of the
 * batch back at once (due now, attempt uncounted) for a replica whose path to
 * the ledger is healthy, and the step says so, so the worker backs off. When
 * the worker is stopping, rows not yet started are given back the same way.
 */
import { enqueueEvent } from '@platform/events';
import { isAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { DataSource, isUnavailable, releaseClaims, withTransaction } from '@platform/persistence';
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

/** What one step did: collections credited, and whether it stopped early because the ledger was unavailable. */
export interface CreditStepResult {
  credited: number;
  unavailable: boolean;
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
    return (await this.step({ onlyId })).credited;
  }

  /** One step, for the worker: stops early (giving the unstarted rows back) when the ledger is unavailable or `stopping()`. */
  async step(options: { onlyId?: string; stopping?: () => boolean } = {}): Promise<CreditStepResult> {
    const claimed = await withTransaction(this.deps.dataSource, (manager) =>
      this.deps.collections.claimDueForCredit(manager, this.deps.batchSize, CREDIT_LEASE_MS, options.onlyId),
    );
    let credited = 0;
    for (const [index, collection] of claimed.entries()) {
      const outcome = options.stopping?.() ? 'unavailable' : await this.creditOne(collection);
      if (outcome === 'unavailable') {
        await this.giveBack(claimed.slice(index));
        return { credited, unavailable: !options.stopping?.() };
      }
      if (outcome === 'credited') credited += 1;
    }
    return { credited, unavailable: false };
  }

  private async giveBack(collections: CollectionRecord[]): Promise<void> {
    const ids = collections.map((collection) => collection.id);
    await releaseClaims(this.deps.dataSource.manager, this.deps.collections.dueForCredit, ids);
  }

  private async creditOne(collection: CollectionRecord): Promise<'credited' | 'not_credited' | 'unavailable'> {
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
      if (isUnavailable(error)) {
        this.deps.logger.warn('ledger unavailable; collection given back for another replica', {
          collectionId: collection.id,
        });
        return 'unavailable';
      }
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
      return 'not_credited';
    }
    return (await this.finish(collection, entryId)) ? 'credited' : 'not_credited';
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
