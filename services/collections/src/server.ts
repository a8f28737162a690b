/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer, TlsMaterial } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { DataSource, dueRowsProbe, ListAuditRecordsUseCase } from '@platform/persistence';
import { collections } from '@platform/proto';
import type { LedgerCredits } from './adapters/ledger.adapter';
import type { UsdRails } from './adapters/usd-rails.adapter';
import type { FeeTerms } from './domain/collection-fee';
import { collectionsAdminHandlers } from './grpc/collections-admin.handlers';
import { collectionsSandboxHandlers } from './grpc/collections-sandbox.handlers';
import { collectionsHandlers } from './grpc/collections.handlers';
import { CollectionsRepository } from './persistence/collections.repository';
import { SERVICE_NAME } from './persistence/data-source';
import { DepositsRepository } from './persistence/deposits.repository';
import type { Step } from './workers/step-scheduler';
import { ConfigureFeesUseCase } from './usecases/configure-fees/configure-fees.usecase';
import { CreateCollectionUseCase } from './usecases/create-collection/create-collection.usecase';
import { CreditCollectionsUseCase } from './usecases/credit-collections/credit-collections.usecase';
import { ExpireCollectionNowUseCase } from './usecases/expire-collection-now/expire-collection-now.usecase';
import { ExpireCollectionsUseCase } from './usecases/expire-collections/expire-collections.usecase';
import { GetCollectionUseCase } from './usecases/get-collection/get-collection.usecase';
import { ListCollectionsUseCase } from './usecases/list-collections/list-collections.usecase';
import { RecordDepositUseCase } from './usecases/record-deposit/record-deposit.usecase';
import { SimulateDepositUseCase } from './usecases/simulate-deposit/simulate-deposit.usecase';
import { COLLECTIONS_ACCESS } from './grpc/access';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** This service's mutual-TLS material (its identity), shared with its clients. */
  tls: TlsMaterial;
  mode: 'sandbox' | 'production';
  ledger: LedgerCredits;
  rails: UsdRails;
  defaultFeeTerms: FeeTerms;
  lifetimeMs: number;
  stepBatchSize: number;
}

export interface CollectionsServer {
  server: GrpcServer;
  /** The time-driven steps main runs on its scheduler. */
  steps: Step[];
}

export function createServer(deps: ServerDependencies): CollectionsServer {
  const { dataSource, logger, rails } = deps;
  const collectionsRepository = new CollectionsRepository();
  const configureFees = new ConfigureFeesUseCase({
    dataSource,
    collections: collectionsRepository,
    defaults: deps.defaultFeeTerms,
  });
  const getCollection = new GetCollectionUseCase({ dataSource, collections: collectionsRepository });
  const creditCollections = new CreditCollectionsUseCase({
    dataSource,
    collections: collectionsRepository,
    ledger: deps.ledger,
    logger: logger.child({ context: 'CreditCollections' }),
    batchSize: deps.stepBatchSize,
  });
  const expireCollections = new ExpireCollectionsUseCase({
    dataSource,
    collections: collectionsRepository,
    logger: logger.child({ context: 'ExpireCollections' }),
    batchSize: deps.stepBatchSize,
  });
  const recordDeposit = new RecordDepositUseCase({
    dataSource,
    collections: collectionsRepository,
    deposits: new DepositsRepository(),
    rails,
  });
  const sandbox = deps.mode === 'sandbox';
  const server = createGrpcServer(logger, deps.tls);
  server.add(
    collections.CollectionsService,
    collectionsHandlers({
      createCollection: new CreateCollectionUseCase({
        dataSource,
        collections: collectionsRepository,
        feeTerms: configureFees,
        rails,
        lifetimeMs: deps.lifetimeMs,
      }),
      getCollection,
      listCollections: new ListCollectionsUseCase({ dataSource, collections: collectionsRepository }),
      rails,
    }),
    COLLECTIONS_ACCESS.COLLECTIONS,
  );
  server.add(
    collections.CollectionsAdminService,
    collectionsAdminHandlers({
      configureFees,
      listAuditRecords: new ListAuditRecordsUseCase(dataSource, SERVICE_NAME),
    }),
    COLLECTIONS_ACCESS.ADMIN,
  );
  server.add(
    collections.CollectionsSandboxService,
    collectionsSandboxHandlers({
      simulateDeposit: sandbox ? new SimulateDepositUseCase({ recordDeposit, creditCollections, getCollection }) : null,
      expireCollectionNow: sandbox ? new ExpireCollectionNowUseCase({ getCollection, expireCollections }) : null,
      rails,
    }),
    COLLECTIONS_ACCESS.SANDBOX,
  );
  return {
    server,
    steps: [
      {
        name: 'credit',
        worker: 'collection_credit',
        run: async (stopping) => {
          const result = await creditCollections.step({ stopping });
          return { handled: result.credited, unavailable: result.unavailable };
        },
        ready: () => deps.ledger.reachable?.() ?? true,
        measureDue: dueRowsProbe(dataSource, collectionsRepository.dueForCredit),
      },
      {
        name: 'expire',
        worker: 'collection_expiry',
        run: async () => ({ handled: await expireCollections.execute(), unavailable: false }),
        measureDue: dueRowsProbe(dataSource, collectionsRepository.dueForExpiry),
      },
    ],
  };
}
