/**
 * Opens a collection: a unique reference with a check symbol, a dedicated
 * deposit account from the USD rails, and the partner's fee terms frozen onto
 * it. partnerReference is the partner's idempotency key (claimIdempotently):
 * the same body again returns the original (created = false), also under
 * concurrency (the unique constraint decides the race); another body is
 * IDEMPOTENCY_KEY_REUSED.
 */
import { randomUUID } from 'node:crypto';
import { claimIdempotently, DataSource, isUniqueViolation, withTransaction } from '@platform/persistence';
import type { UsdRails } from '../../adapters/usd-rails.adapter';
import type { CollectionRecord } from '../../domain/collection';
import { newCollectionReference } from '../../domain/collection-reference';
import { createRequestHash } from '../../domain/request-hash';
import type { CollectionsRepository } from '../../persistence/collections.repository';
import type { FeeTermsResolver } from '../configure-fees/configure-fees.usecase';

export interface CreateCollectionCommand {
  partnerId: string;
  currency: 'USD';
  partnerReference: string;
  payerLabel: string;
  expectedAmount: string | null;
}

/** A reference clash among 31^10 is near impossible; a few fresh draws settle it. */
const REFERENCE_ATTEMPTS_MAX = 5;
const PARTNER_REFERENCE_CONSTRAINT = 'collections_partner_reference_key';

export class CreateCollectionUseCase {
  constructor(
    private readonly deps: {
      dataSource: DataSource;
      collections: CollectionsRepository;
      feeTerms: FeeTermsResolver;
      rails: UsdRails;
      lifetimeMs: number;
      now?: () => Date;
    },
  ) {}

  async execute(command: CreateCollectionCommand): Promise<{ collection: CollectionRecord; created: boolean }> {
    const { manager } = this.deps.dataSource;
    const requestHash = createRequestHash(command);
    const { resource, replayed } = await claimIdempotently({
      requestHash,
      find: () => this.deps.collections.findByPartnerReference(manager, command.partnerId, command.partnerReference),
      claim: () => this.insertUnlessTaken(command, requestHash),
    });
    return { collection: resource, created: !replayed };
  }

  /** Null when another create holds the partnerReference (the unique constraint decides the race); a reference clash draws again. */
  private async insertUnlessTaken(
    command: CreateCollectionCommand,
    requestHash: string,
  ): Promise<CollectionRecord | null> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.insertNew(command, requestHash);
      } catch (error) {
        if (isUniqueViolation(error, PARTNER_REFERENCE_CONSTRAINT)) return null;
        if (!isUniqueViolation(error) || attempt >= REFERENCE_ATTEMPTS_MAX) throw error;
      }
    }
  }

  private async insertNew(command: CreateCollectionCommand, requestHash: string): Promise<CollectionRecord> {
    return withTransaction(this.deps.dataSource, async (manager) => {
      const terms = await this.deps.feeTerms.termsFor(manager, command.partnerId);
      const createdAt = (this.deps.now ?? (() => new Date()))();
      const record: CollectionRecord = {
        id: randomUUID(),
        partnerId: command.partnerId,
        reference: newCollectionReference(),
        partnerReference: command.partnerReference,
        requestHash,
        payerLabel: command.payerLabel,
        currency: 'USD',
        status: 'open',
        accountNumber: this.deps.rails.openDepositAccount(),
        feePercentBps: terms.percentBps,
        feeFlatMinor: terms.flatMinor,
        feeCapMinor: terms.capMinor,
        expectedAmount: command.expectedAmount,
        grossAmount: null,
        feeAmount: null,
        netAmount: null,
        amountMismatch: null,
        senderName: null,
        depositId: null,
        creditEntryId: null,
        refundReason: null,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + this.deps.lifetimeMs),
      };
      await this.deps.collections.insert(manager, record);
      return record;
    });
  }
}
