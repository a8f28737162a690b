/** Wires repositories, adapters and use cases into the gRPC server. */
import { createGrpcServer, GrpcServer, TlsMaterial, withPageAnswer } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { BatchSweeper, DataSource, ListAuditRecordsUseCase } from '@platform/persistence';
import { ledger } from '@platform/proto';
import type { ChainCustodian } from './adapters/chain-custodian/chain-custodian';
import { ledgerHandlers, ledgerSandboxHandlers } from './grpc/ledger.handlers';
import { AccountsRepository } from './persistence/accounts.repository';
import { KesCreditsRepository } from './persistence/kes-credits.repository';
import { GetBalancesUseCase } from './usecases/get-balances/get-balances.usecase';
import { OpenPartnerAccountsUseCase } from './usecases/open-partner-accounts/open-partner-accounts.usecase';
import { RecordKesCreditUseCase } from './usecases/record-kes-credit/record-kes-credit.usecase';
import { SimulateKesCreditUseCase } from './usecases/simulate-kes-credit/simulate-kes-credit.usecase';
import { PaymentReferencesUseCase } from './usecases/payment-references/payment-references.usecase';
import { PaymentReferencesRepository } from './persistence/payment-references.repository';
import { EntriesRepository } from './persistence/entries.repository';
import { HoldsRepository } from './persistence/holds.repository';
import { CheckLedgerUseCase } from './usecases/check-ledger/check-ledger.usecase';
import { ExpireHoldsUseCase } from './usecases/expire-holds/expire-holds.usecase';
import { ListAccountHistoryUseCase } from './usecases/list-account-history/list-account-history.usecase';
import { ListStatementUseCase } from './usecases/list-statement/list-statement.usecase';
import { StatementRepository } from './persistence/statement.repository';
import { PlaceHoldUseCase } from './usecases/place-hold/place-hold.usecase';
import { PostingSpreader } from './usecases/post-entry/spread-postings';
import { PostEntryUseCase } from './usecases/post-entry/post-entry.usecase';
import { PostHoldUseCase } from './usecases/post-hold/post-hold.usecase';
import { VoidHoldUseCase } from './usecases/void-hold/void-hold.usecase';
import { ListOwnedHoldsUseCase } from './usecases/list-owned-holds/list-owned-holds.usecase';
import { loggedMoneyMovements, MoneyMovementLog } from './usecases/money-movements';
import type { DepositHoldLimits } from './domain/deposit-plan';
import { UsdtDepositsRepository } from './persistence/usdt-deposits.repository';
import { UsdtDepositExpectationsRepository } from './persistence/usdt-deposit-expectations.repository';
import { ExpectUsdtDepositUseCase } from './usecases/expect-usdt-deposit/expect-usdt-deposit.usecase';
import { ClaimUsdtDepositUseCase } from './usecases/claim-usdt-deposit/claim-usdt-deposit.usecase';
import { RecordUsdtDepositUseCase } from './usecases/record-usdt-deposit/record-usdt-deposit.usecase';
import { ReleaseHeldDepositsUseCase } from './usecases/release-held-deposits/release-held-deposits.usecase';
import { SimulateUsdtDepositUseCase } from './usecases/simulate-usdt-deposit/simulate-usdt-deposit.usecase';
import { PayoutDestinationsRepository } from './persistence/payout-destinations.repository';
import {
  FundingSettings,
  GetFundingInstructionsUseCase,
} from './usecases/get-funding-instructions/get-funding-instructions.usecase';
import { ManagePayoutDestinationsUseCase } from './usecases/manage-payout-destinations/manage-payout-destinations.usecase';
import { SetAccountReadinessUseCase } from './usecases/set-account-readiness/set-account-readiness.usecase';
import { LEDGER_ACCESS } from './grpc/access';
import { SERVICE_NAME } from './persistence/data-source';
import { ledgerSweepers } from './workers/sweepers';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** This service's mutual-TLS material (its identity), shared with its clients. */
  tls: TlsMaterial;
  custodian: ChainCustodian;
  sandbox: boolean;
  /** Called after a transaction that enqueued events commits (kicks the outbox relay). */
  onEventsCommitted: () => void;
  holdSweepIntervalMs: number;
  holdSweepBatchSize: number;
  funding: FundingSettings;
  depositHoldLimits: DepositHoldLimits;
}

export interface LedgerServer {
  server: GrpcServer;
  /** Expire overdue holds and credit held deposits in the background; started by main, stopped at shutdown. */
  sweepers: BatchSweeper[];
}

function moneyDependencies(
  deps: ServerDependencies,
  accounts: AccountsRepository,
  holds: HoldsRepository,
  movements: MoneyMovementLog,
) {
  const entries = new EntriesRepository();
  const spreader = new PostingSpreader(accounts);
  return {
    dataSource: deps.dataSource,
    accounts,
    holds,
    placeHold: new PlaceHoldUseCase(deps.dataSource, holds, movements),
    postHold: new PostHoldUseCase(deps.dataSource, holds, movements, spreader),
    voidHold: new VoidHoldUseCase(deps.dataSource, holds, movements),
    listOwnedHolds: new ListOwnedHoldsUseCase(deps.dataSource, holds),
    postEntry: new PostEntryUseCase(deps.dataSource, entries, movements, spreader),
    listAccountHistory: new ListAccountHistoryUseCase(deps.dataSource, entries),
    checkLedger: new CheckLedgerUseCase(deps.dataSource, deps.holdSweepIntervalMs),
  };
}

export function createServer(deps: ServerDependencies): LedgerServer {
  const server = createGrpcServer(deps.logger, deps.tls);
  const movements = loggedMoneyMovements(deps.logger.child({ context: 'MoneyMovements' }));
  const accounts = new AccountsRepository(deps.dataSource);
  const holds = new HoldsRepository();
  const deposits = new UsdtDepositsRepository();
  const expectations = new UsdtDepositExpectationsRepository();
  const recordUsdtDeposit = new RecordUsdtDepositUseCase(
    deps.dataSource,
    accounts,
    deposits,
    expectations,
    deps.depositHoldLimits,
    deps.onEventsCommitted,
  );
  const kesCredits = new KesCreditsRepository();
  const paymentReferences = new PaymentReferencesRepository();
  const recordKesCredit = new RecordKesCreditUseCase(
    deps.dataSource,
    accounts,
    kesCredits,
    deps.onEventsCommitted,
    paymentReferences,
    movements,
  );
  server.add(
    // A statement page goes out as its JSON bytes with fewer copies than the generated codec makes.
    withPageAnswer(ledger.LedgerService, 'listStatement', ledger.ListStatementResponse, 'pageJson', 'serve'),
    ledgerHandlers({
      accounts,
      openPartnerAccounts: new OpenPartnerAccountsUseCase(deps.dataSource, accounts, deps.custodian),
      getBalances: new GetBalancesUseCase(accounts),
      listStatement: new ListStatementUseCase(new StatementRepository(deps.dataSource)),
      recordKesCredit,
      money: moneyDependencies(deps, accounts, holds, movements),
      accountsAdmin: {
        readiness: new SetAccountReadinessUseCase(deps.dataSource, accounts, deps.custodian),
        funding: new GetFundingInstructionsUseCase(accounts, deps.funding),
        payoutDestinations: new ManagePayoutDestinationsUseCase(
          deps.dataSource,
          accounts,
          new PayoutDestinationsRepository(deps.dataSource),
        ),
      },
      recordUsdtDeposit,
      claimUsdtDeposit: new ClaimUsdtDepositUseCase(deps.dataSource, deposits),
      expectUsdtDeposit: new ExpectUsdtDepositUseCase(deps.dataSource, expectations, deposits),
      paymentReferences: new PaymentReferencesUseCase(deps.dataSource, paymentReferences, kesCredits),
      listAuditRecords: new ListAuditRecordsUseCase(deps.dataSource, SERVICE_NAME),
    }),
    LEDGER_ACCESS.LEDGER,
  );
  if (deps.sandbox) {
    server.add(
      ledger.LedgerSandboxService,
      ledgerSandboxHandlers({
        simulateKesCredit: new SimulateKesCreditUseCase(accounts, recordKesCredit, deps.dataSource, paymentReferences),
        simulateUsdtDeposit: new SimulateUsdtDepositUseCase(accounts, recordUsdtDeposit),
      }),
      LEDGER_ACCESS.LEDGER_SANDBOX,
    );
  }
  const sweep = { intervalMs: deps.holdSweepIntervalMs, batchSize: deps.holdSweepBatchSize };
  const expireHolds = new ExpireHoldsUseCase(deps.dataSource, holds, movements);
  const releaseDeposits = new ReleaseHeldDepositsUseCase(deps.dataSource, accounts, deposits, deps.onEventsCommitted);
  return {
    server,
    sweepers: ledgerSweepers({
      dataSource: deps.dataSource,
      logger: deps.logger,
      sweep,
      holds,
      deposits,
      expireHolds,
      releaseDeposits,
    }),
  };
}
