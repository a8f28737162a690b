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
import { EntriesRepository } from './persistence/entries.repository';
import { HoldsRepository } from './persistence/holds.repository';
import { CheckLedgerUseCase } from './usecases/check-ledger/check-ledger.usecase';
import { ExpireHoldsUseCase } from './usecases/expire-holds/expire-holds.usecase';
import { ListAccountHistoryUseCase } from './usecases/list-account-history/list-account-history.usecase';
import { PlaceHoldUseCase } from './usecases/place-hold/place-hold.usecase';
import { PostEntryUseCase } from './usecases/post-entry/post-entry.usecase';
import { PostHoldUseCase } from './usecases/post-hold/post-hold.usecase';
import { VoidHoldUseCase } from './usecases/void-hold/void-hold.usecase';
import { HoldExpirySweeper } from './workers/hold-expiry.sweeper';
import { PayoutDestinationsRepository } from './persistence/payout-destinations.repository';
import { FundingSettings, GetFundingInstructionsUseCase } from './usecases/get-funding-instructions/get-funding-instructions.usecase';
import { ManagePayoutDestinationsUseCase } from './usecases/manage-payout-destinations/manage-payout-destinations.usecase';
import { SetAccountReadinessUseCase } from './usecases/set-account-readiness/set-account-readiness.usecase';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  custodian: ChainCustodian;
  sandbox: boolean;
  /** Called after a transaction that enqueued events commits (kicks the outbox relay). */
  onEventsCommitted: () => void;
  holdSweepIntervalMs: number;
  holdSweepBatchSize: number;
  funding: FundingSettings;
}

export interface LedgerServer {
  server: GrpcServer;
  /** Expires overdue holds in the background; started by main, stopped at shutdown. */
  holdExpirySweeper: HoldExpirySweeper;
}

function moneyDependencies(deps: ServerDependencies, accounts: AccountsRepository, holds: HoldsRepository) {
  const entries = new EntriesRepository();
  return {
    dataSource: deps.dataSource,
    accounts,
    holds,
    placeHold: new PlaceHoldUseCase(deps.dataSource, holds),
    postHold: new PostHoldUseCase(deps.dataSource, holds),
    voidHold: new VoidHoldUseCase(deps.dataSource, holds),
    postEntry: new PostEntryUseCase(deps.dataSource, entries),
    listAccountHistory: new ListAccountHistoryUseCase(deps.dataSource, entries),
    checkLedger: new CheckLedgerUseCase(deps.dataSource, deps.holdSweepIntervalMs),
  };
}

export function createServer(deps: ServerDependencies): LedgerServer {
  const server = createGrpcServer(deps.logger);
  const accounts = new AccountsRepository(deps.dataSource);
  const holds = new HoldsRepository();
  const recordKesCredit = new RecordKesCreditUseCase(deps.dataSource, accounts, new KesCreditsRepository(), deps.onEventsCommitted);
  server.add(ledger.LedgerService, ledgerHandlers({
    accounts,
    openPartnerAccounts: new OpenPartnerAccountsUseCase(deps.dataSource, accounts, deps.custodian),
    getBalances: new GetBalancesUseCase(accounts),
    recordKesCredit,
    money: moneyDependencies(deps, accounts, holds),
    accountsAdmin: {
      readiness: new SetAccountReadinessUseCase(accounts, deps.custodian),
      funding: new GetFundingInstructionsUseCase(accounts, deps.funding),
      payoutDestinations: new ManagePayoutDestinationsUseCase(accounts, new PayoutDestinationsRepository(deps.dataSource)),
    },
  }));
  if (deps.sandbox) {
    server.add(ledger.LedgerSandboxService, ledgerSandboxHandlers({ simulateKesCredit: new SimulateKesCreditUseCase(accounts, recordKesCredit) }));
  }
  const holdExpirySweeper = new HoldExpirySweeper(new ExpireHoldsUseCase(deps.dataSource, holds), deps.logger.child({ context: 'HoldExpirySweeper' }), {
    intervalMs: deps.holdSweepIntervalMs,
    batchSize: deps.holdSweepBatchSize,
  });
  return { server, holdExpirySweeper };
}
