/**
 * A deposit the USD rails report for a collection. Exactly once per rails
 * deposit id: the collection row is locked first, so repeated and concurrent
 * notifications queue and the later ones find the deposit already recorded.
 *
 * One contribution per collection: the first deposit to an open collection is
 * its contribution (received, or refunded when the rails return it or the fee
 * would take all of it); any deposit to a collection that is no longer open
 * (expired, or already funded) is returned to the payer and changes nothing.
 * An amount that differs from expectedAmount is accepted and flagged
 * (amountMismatch), never refused. Crediting happens after commit, in the
 * step driver (`CreditCollectionsUseCase`).
 */
import { randomUUID } from 'node:crypto';
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, formatAmount, fromMinorUnits, parsePositiveAmount, toMinorUnits } from '@platform/money';
import {
  claimIdempotently,
  DataSource,
  EntityManager,
  isUniqueViolation,
  withTransaction,
} from '@platform/persistence';
import type { UsdRails } from '../../adapters/usd-rails.adapter';
import type { CollectionRecord, RefundReason } from '../../domain/collection';
import { applyFee } from '../../domain/collection-fee';
import type { CollectionsRepository } from '../../persistence/collections.repository';
import type { DepositRecord, DepositsRepository } from '../../persistence/deposits.repository';

export interface RecordDepositCommand {
  partnerId: string;
  collectionId: string;
  depositId: string;
  amount: string;
  senderName: string | null;
}

export interface RecordDepositResult {
  deposit: DepositRecord;
  created: boolean;
}

const DEPOSIT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

type Decision = { kind: 'accept' } | { kind: 'refund'; reason: RefundReason; closesCollection: boolean };

export class RecordDepositUseCase {
  constructor(
    private readonly deps: {
      dataSource: DataSource;
      collections: CollectionsRepository;
      deposits: DepositsRepository;
      rails: UsdRails;
      now?: () => Date;
    },
  ) {}

  async execute(command: RecordDepositCommand): Promise<RecordDepositResult> {
    if (!isUuid(command.collectionId) || !isUuid(command.partnerId)) throw new AppError('COLLECTION_NOT_FOUND');
    const amount = parsePositiveAmount(command.amount, 'USD');
    if (!amount) throw validationFailed(['amount']);
    const depositId = command.depositId === '' ? randomUUID() : command.depositId;
    if (!DEPOSIT_ID.test(depositId)) throw validationFailed(['depositId']);
    try {
      return await withTransaction(this.deps.dataSource, (manager) =>
        this.record(manager, { ...command, depositId }, amount),
      );
    } catch (error) {
      // The same rails id reported for another collection at the same moment.
      if (isUniqueViolation(error)) throw new AppError('IDEMPOTENCY_KEY_REUSED');
      throw error;
    }
  }

  private async record(
    manager: EntityManager,
    command: RecordDepositCommand,
    amount: Big,
  ): Promise<RecordDepositResult> {
    const locked = await this.deps.collections.findForPartner(manager, command.partnerId, command.collectionId, true);
    if (!locked) throw new AppError('COLLECTION_NOT_FOUND');
    // The collection's row lock serialises reports for it: the claim never meets a twin here.
    const { resource, replayed } = await claimIdempotently({
      requestHash: depositFingerprint(locked.id, amount),
      find: async () => fingerprinted(await this.deps.deposits.find(manager, command.depositId)),
      claim: async () => fingerprinted(await this.recordNew(manager, locked, command, amount)),
    });
    return { deposit: resource.deposit, created: !replayed };
  }

  private async recordNew(
    manager: EntityManager,
    locked: CollectionRecord,
    command: RecordDepositCommand,
    amount: Big,
  ): Promise<DepositRecord> {
    const receivedAt = (this.deps.now ?? (() => new Date()))();
    const collection = await this.expireIfLapsed(manager, locked, receivedAt);
    const grossAmount = formatAmount(amount, 'USD');
    const decision = this.decide(collection, amount, command.senderName);
    const mismatch = collection.expectedAmount === null ? null : !new Big(collection.expectedAmount).eq(amount);
    if (decision.kind === 'accept') {
      const outcome = applyFee(toMinorUnits(amount, 'USD'), {
        percentBps: collection.feePercentBps,
        flatMinor: collection.feeFlatMinor,
        capMinor: collection.feeCapMinor,
      });
      if (outcome.kind !== 'credit') throw new Error('decide() accepted a deposit the fee swallows');
      await this.deps.collections.markReceived(
        manager,
        collection.id,
        {
          grossAmount,
          feeAmount: formatAmount(fromMinorUnits(outcome.feeMinor, 'USD'), 'USD'),
          netAmount: formatAmount(fromMinorUnits(outcome.netMinor, 'USD'), 'USD'),
          amountMismatch: mismatch,
          senderName: command.senderName,
          depositId: command.depositId,
          creditEntryId: randomUUID(),
        },
        receivedAt,
      );
    } else if (decision.closesCollection) {
      await this.deps.collections.markRefunded(
        manager,
        collection.id,
        {
          grossAmount,
          senderName: command.senderName,
          depositId: command.depositId,
          reason: decision.reason,
          amountMismatch: mismatch,
        },
        receivedAt,
      );
    }
    const deposit: DepositRecord = {
      depositId: command.depositId,
      collectionId: collection.id,
      amount: grossAmount,
      senderName: command.senderName,
      disposition: decision.kind === 'accept' ? 'accepted' : 'refunded',
      refundReason: decision.kind === 'refund' ? decision.reason : null,
      receivedAt,
    };
    await this.deps.deposits.insert(manager, deposit);
    return deposit;
  }

  /** A deposit that arrives after the lifetime but before the expiry sweep finds the collection expired, as the sweep would have left it. */
  private async expireIfLapsed(
    manager: EntityManager,
    collection: CollectionRecord,
    at: Date,
  ): Promise<CollectionRecord> {
    if (collection.status !== 'open' || collection.expiresAt > at) return collection;
    await this.deps.collections.expireOne(manager, collection.id);
    return { ...collection, status: 'expired' };
  }

  private decide(collection: CollectionRecord, amount: Big, senderName: string | null): Decision {
    if (collection.status === 'expired')
      return { kind: 'refund', reason: 'collection_expired', closesCollection: false };
    if (collection.status !== 'open') return { kind: 'refund', reason: 'collection_not_open', closesCollection: false };
    if (this.deps.rails.returnsDeposit({ senderName }))
      return { kind: 'refund', reason: 'returned_by_rails', closesCollection: true };
    const outcome = applyFee(toMinorUnits(amount, 'USD'), {
      percentBps: collection.feePercentBps,
      flatMinor: collection.feeFlatMinor,
      capMinor: collection.feeCapMinor,
    });
    if (outcome.kind === 'refund') return { kind: 'refund', reason: outcome.reason, closesCollection: true };
    return { kind: 'accept' };
  }
}

/**
 * What a repeat of a rails deposit id must match: the same collection and
 * amount (another is IDEMPOTENCY_KEY_REUSED). Deposits keep no request hash,
 * so the fingerprint is made from the stored columns, the amount at USD scale.
 */
function depositFingerprint(collectionId: string, amount: Big): string {
  return JSON.stringify([collectionId, formatAmount(amount, 'USD')]);
}

function fingerprinted(deposit: DepositRecord | null): { deposit: DepositRecord; requestHash: string } | null {
  return deposit && { deposit, requestHash: depositFingerprint(deposit.collectionId, new Big(deposit.amount)) };
}
