/** Wires repositories, adapters and use cases into the gRPC server. */
import { createGrpcServer, GrpcServer } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { ledger } from '@platform/proto';
import type { ChainCustodian } from './adapters/chain-custodian/chain-custodian';
import { ledgerHandlers, ledgerSandboxHandlers } from './grpc/ledger.handlers';
import { AccountsRepository } from './persistence/accounts.repository';
import { KesCreditsRepository } from './persistence/kes-credits.repository';
import { GetBalancesUseCase } from './usecases/get-balances/get-balances.usecase';
import { OpenPartnerAccountsUseCase } from './usecases/open-partner-accounts/open-partner-accounts.usecase';
import { RecordKesCreditUseCase } from './usecases/record-kes-credit/record-kes-credit.usecase';
import { SimulateKesCreditUseCase } from './usecases/simulate-kes-credit/simulate-kes-credit.usecase';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  custodian: ChainCustodian;
  sandbox: boolean;
  /** Called after a transaction that enqueued events commits (kicks the outbox relay). */
  onEventsCommitted: () => void;
}

export function createServer(deps: ServerDependencies): GrpcServer {
  const server = createGrpcServer(deps.logger);
  const accounts = new AccountsRepository(deps.dataSource);
  const recordKesCredit = new RecordKesCreditUseCase(deps.dataSource, accounts, new KesCreditsRepository(), deps.onEventsCommitted);
  server.add(ledger.LedgerService, ledgerHandlers({
    accounts,
    openPartnerAccounts: new OpenPartnerAccountsUseCase(deps.dataSource, accounts, deps.custodian),
    getBalances: new GetBalancesUseCase(accounts),
    recordKesCredit,
  }));
  if (deps.sandbox) {
    server.add(ledger.LedgerSandboxService, ledgerSandboxHandlers({ simulateKesCredit: new SimulateKesCreditUseCase(accounts, recordKesCredit) }));
  }
  return server;
}
