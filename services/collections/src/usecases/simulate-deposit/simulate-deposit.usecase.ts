/**
 * Sandbox: a USD deposit as the rails would report it, then the credit step at once for that collection
 * (the scheduler would run it within a tick anyway), so the answer usually shows the collection credited.
 */
import type { CollectionRecord } from '../../domain/collection';
import type { DepositRecord } from '../../persistence/deposits.repository';
import type { CreditCollectionsUseCase } from '../credit-collections/credit-collections.usecase';
import type { GetCollectionUseCase } from '../get-collection/get-collection.usecase';
import type { RecordDepositCommand, RecordDepositUseCase } from '../record-deposit/record-deposit.usecase';

export interface SimulatedDeposit {
  deposit: DepositRecord;
  /** The collection as it stands after the deposit and its credit step. */
  collection: CollectionRecord;
  created: boolean;
}

export class SimulateDepositUseCase {
  constructor(
    private readonly deps: {
      recordDeposit: Pick<RecordDepositUseCase, 'execute'>;
      creditCollections: Pick<CreditCollectionsUseCase, 'execute'>;
      getCollection: Pick<GetCollectionUseCase, 'execute'>;
    },
  ) {}

  async execute(command: RecordDepositCommand): Promise<SimulatedDeposit> {
    const { deposit, created } = await this.deps.recordDeposit.execute(command);
    await this.deps.creditCollections.execute(command.collectionId);
    const collection = await this.deps.getCollection.execute({
      partnerId: command.partnerId,
      collectionId: command.collectionId,
    });
    return { deposit, collection, created };
  }
}
