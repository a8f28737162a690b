/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import type { Big } from '@platform/money';
import { allReachable, createGrpcServer, GrpcServer, TlsMaterial } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { BatchSweeper, DataSource, DurableScheduler, SchedulerOptions } from '@platform/persistence';
import { payouts, payoutsFunding } from '@platform/proto';
import type { BankAdapter, MobileMoneyPushBank } from './adapters/bank/bank';
import type { ChainCustodian } from './adapters/chain/chain-custodian';
import type { WrongCodeBudgetSettings } from './domain/wrong-code-budget';
import { ConfirmationCodeSender } from './adapters/peers/confirmation-code-sender';
import {
  LedgerApi,
  NotifierApi,
  ServiceAccounts,
  TradingLimitsApi,
  TradingSellProceedsApi,
  WalletRegistryApi,
} from './adapters/peers/peers';
import { mobileMoneyFundingHandlers, mobileMoneyFundingSandboxHandlers } from './grpc/funding.handlers';
import { payoutsOperatorHandlers } from './grpc/payouts-operator.handlers';
import { transferBatchesHandlers } from './grpc/transfer-batches.handlers';
import { transfersHandlers } from './grpc/transfers.handlers';
import { usdtSendsHandlers } from './grpc/usdt-sends.handlers';
import { ConfirmationsRepository } from './persistence/confirmations.repository';
import { MobileMoneyPushesRepository } from './persistence/mobile-money-pushes.repository';
import { PayoutInstructionsRepository } from './persistence/payout-instructions.repository';
import { TransferBatchesRepository } from './persistence/transfer-batches.repository';
import { TransfersRepository } from './persistence/transfers.repository';
import { UsdtSendsRepository } from './persistence/usdt-sends.repository';
import { WrongCodeBudgetsRepository } from './persistence/wrong-code-budgets.repository';
import { ConfirmUseCase } from './usecases/confirm/confirm.usecase';
import { CreateTransferSettings, CreateTransferUseCase } from './usecases/create-transfer/create-transfer.usecase';
import { CreateTransferBatchUseCase } from './usecases/create-transfer-batch/create-transfer-batch.usecase';
import { CreateUsdtSendUseCase } from './usecases/create-usdt-send/create-usdt-send.usecase';
import { ListTransfersUseCase } from './usecases/list-transfers/list-transfers.usecase';
import { ListTransferBatchesUseCase } from './usecases/list-transfer-batches/list-transfer-batches.usecase';
import { ListUsdtSendsUseCase } from './usecases/list-usdt-sends/list-usdt-sends.usecase';
import { ListMobileMoneyPushesUseCase } from './usecases/funding/list-mobile-money-pushes.usecase';
import { UsdtSendSteps } from './usecases/run-usdt-sends/usdt-send-steps';
import { PayOrderProceedsUseCase } from './usecases/pay-order-proceeds/pay-order-proceeds.usecase';
import { PaySellProceedsUseCase } from './usecases/pay-sell-proceeds/pay-sell-proceeds.usecase';
import { subjectDescriber } from './usecases/resend-confirmation/describe-subject';
import { ResendConfirmationUseCase } from './usecases/resend-confirmation/resend-confirmation.usecase';
import { PayoutSteps, PayoutStepsOptions } from './usecases/run-payouts/payout-steps';
import { AnswerMobileMoneyPushUseCase } from './usecases/funding/answer-mobile-money-push.usecase';
import { CreateMobileMoneyPushUseCase } from './usecases/funding/create-mobile-money-push.usecase';
import { PushCredits } from './usecases/funding/push-credits';
import { TransferOutcomes } from './usecases/run-payouts/transfer-outcomes';
import { TransferSteps } from './usecases/run-transfers/transfer-steps';
import { ReconcileHoldsUseCase } from './usecases/reconcile-holds/reconcile-holds.usecase';
import { UnlockPartnerConfirmationsUseCase } from './usecases/unlock-partner-confirmations/unlock-partner-confirmations.usecase';
import { PAYOUTS_ACCESS } from './grpc/access';
import { PayoutWorker } from './workers/payout.worker';
import { sellProceedsWorker } from './workers/sell-proceeds.worker';
import {
  mobileMoneyCreditWorker,
  orphanedHoldsWorker,
  transferBatchWorker,
  transferWorker,
  usdtSendWorker,
} from './workers/step.workers';

export interface TransferSettings extends CreateTransferSettings {
  minimumUsdt: Big;
  capUsdt: Big;
}

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** This service's mutual-TLS material (its identity), shared with its clients. */
  tls: TlsMaterial;
  ledger: LedgerApi;
  trading: TradingLimitsApi;
  /** Trading's sell orders whose KES proceeds are due: claimed, paid, reported (trading never calls payouts). */
  sellProceeds: TradingSellProceedsApi;
  walletRegistry: WalletRegistryApi;
  notifier: NotifierApi;
  bank: BankAdapter & MobileMoneyPushBank;
  chain: ChainCustodian;
  /** The payout worker: its claim (interval, batch, lease) and its steps' timings. */
  runner: SchedulerOptions & PayoutStepsOptions;
  scheduler: SchedulerOptions;
  transfers: TransferSettings;
  /** The per-partner budget of wrong confirmation codes. */
  wrongCodeBudget: WrongCodeBudgetSettings;
  funding: { mode: 'sandbox' | 'production'; pushLifetimeMs: number; creditScheduler: SchedulerOptions };
  holdReconciler: { intervalMs: number; minAgeMs: number };
  /** The sell-proceeds worker: how often it asks trading, and how many orders per claim. */
  sellProceedsWorker: { intervalMs: number; batchSize: number };
}

export interface PayoutsServer {
  server: GrpcServer;
  runner: PayoutWorker;
  schedulers: Array<DurableScheduler<unknown>>;
  /** Voids payouts' orphaned ledger holds; started by main, stopped at shutdown. */
  holdReconciler: BatchSweeper;
  /** Pays sell orders' proceeds claimed from trading; started by main, stopped at shutdown. */
  sellProceeds: BatchSweeper;
}

/**
 * Serves payouts.v1 Transfers, TransferBatches, UsdtSends, PayoutsOperator and MobileMoneyFunding.
 * OrderPayouts (deprecated) is no longer served: sell orders' proceeds are claimed from trading.
 */
export function createServer(deps: ServerDependencies): PayoutsServer {
  const server = createGrpcServer(deps.logger, deps.tls);
  const instructions = new PayoutInstructionsRepository(deps.dataSource);
  const transfers = new TransfersRepository();
  const confirmations = new ConfirmationsRepository();
  const sends = new UsdtSendsRepository();
  const batches = new TransferBatchesRepository();
  const budgets = new WrongCodeBudgetsRepository();
  const serviceAccounts = new ServiceAccounts(deps.ledger);
  const transferOutcomes = new TransferOutcomes({
    dataSource: deps.dataSource,
    transfers,
    instructions,
    ledger: deps.ledger,
    trading: deps.trading,
    serviceAccounts,
    logger: deps.logger.child({ context: 'TransferOutcomes' }),
  });
  const runner = new PayoutWorker(
    {
      dataSource: deps.dataSource,
      instructions,
      steps: new PayoutSteps(
        {
          instructions,
          ledger: deps.ledger,
          bank: deps.bank,
          transferOutcomes,
          logger: deps.logger.child({ context: 'PayoutSteps' }),
        },
        deps.runner,
      ),
      ready: allReachable(deps.ledger, deps.trading, deps.bank),
      logger: deps.logger.child({ context: 'PayoutWorker' }),
    },
    deps.runner,
  );
  const transferSteps = new TransferSteps({
    dataSource: deps.dataSource,
    transfers,
    confirmations,
    ledger: deps.ledger,
    trading: deps.trading,
    logger: deps.logger.child({ context: 'TransferSteps' }),
  });
  const workerContext = { dataSource: deps.dataSource, logger: deps.logger, options: deps.scheduler };
  const transferScheduler = transferWorker({
    ...workerContext,
    transfers,
    steps: transferSteps,
    ready: allReachable(deps.ledger, deps.trading),
  });
  const sendSteps = new UsdtSendSteps({
    dataSource: deps.dataSource,
    sends,
    confirmations,
    ledger: deps.ledger,
    trading: deps.trading,
    walletRegistry: deps.walletRegistry,
    chain: deps.chain,
    serviceAccounts,
    logger: deps.logger.child({ context: 'UsdtSendSteps' }),
    statusPollMs: deps.runner.statusPollMs,
  });
  const sendScheduler = usdtSendWorker({
    ...workerContext,
    sends,
    steps: sendSteps,
    ready: allReachable(deps.ledger, deps.trading, deps.walletRegistry, deps.chain),
  });
  const codes = new ConfirmationCodeSender(deps.notifier, deps.logger.child({ context: 'ConfirmationCodeSender' }));
  const batchScheduler = transferBatchWorker({ ...workerContext, batches });
  // What every create (a transfer, a batch, a USDT send) runs its shared steps with: claim, cap, hold, code.
  const createSteps = {
    dataSource: deps.dataSource,
    confirmations,
    ledger: deps.ledger,
    trading: deps.trading,
    walletRegistry: deps.walletRegistry,
    codes,
  };
  const createTransfer = new CreateTransferUseCase({
    ...createSteps,
    transfers,
    bank: deps.bank,
    logger: deps.logger.child({ context: 'CreateTransfer' }),
    settings: deps.transfers,
  });
  const sellProceeds = sellProceedsWorker({
    pay: new PaySellProceedsUseCase({
      trading: deps.sellProceeds,
      payOrderProceeds: new PayOrderProceedsUseCase(instructions, () => runner.kick()),
      logger: deps.logger.child({ context: 'PaySellProceeds' }),
    }),
    logger: deps.logger,
    intervalMs: deps.sellProceedsWorker.intervalMs,
    batchSize: deps.sellProceedsWorker.batchSize,
    ready: allReachable(deps.sellProceeds),
  });
  server.add(
    payouts.TransfersService,
    transfersHandlers({
      dataSource: deps.dataSource,
      transfers,
      confirmations,
      createTransfer,
      confirm: new ConfirmUseCase({
        dataSource: deps.dataSource,
        confirmations,
        transfers,
        sends,
        instructions,
        budgets,
        budget: deps.wrongCodeBudget,
        codeHashKeyHex: deps.transfers.codeHashKeyHex,
        logger: deps.logger.child({ context: 'Confirm' }),
        onConfirmed: () => runner.kick(),
      }),
      resend: new ResendConfirmationUseCase({
        dataSource: deps.dataSource,
        confirmations,
        transfers,
        sends,
        budgets,
        walletRegistry: deps.walletRegistry,
        codes,
        describe: subjectDescriber(transfers, sends),
        settings: deps.transfers,
        logger: deps.logger.child({ context: 'ResendConfirmation' }),
      }),
      listTransfers: new ListTransfersUseCase({ dataSource: deps.dataSource, transfers, confirmations }),
    }),
    PAYOUTS_ACCESS.TRANSFERS,
  );
  server.add(
    payouts.TransferBatchesService,
    transferBatchesHandlers({
      dataSource: deps.dataSource,
      batches,
      transfers,
      confirmations,
      listBatches: new ListTransferBatchesUseCase({ dataSource: deps.dataSource, batches }),
      createBatch: new CreateTransferBatchUseCase({
        ...createSteps,
        batches,
        transfers,
        bank: deps.bank,
        logger: deps.logger.child({ context: 'CreateTransferBatch' }),
        settings: {
          ...deps.transfers,
          perTransferCapKesExceeded: (request) => request.amountKes.gt(deps.transfers.perTransferCapKes),
        },
      }),
    }),
    PAYOUTS_ACCESS.TRANSFER_BATCHES,
  );
  server.add(
    payouts.UsdtSendsService,
    usdtSendsHandlers({
      dataSource: deps.dataSource,
      sends,
      confirmations,
      listSends: new ListUsdtSendsUseCase({ dataSource: deps.dataSource, sends, confirmations }),
      createUsdtSend: new CreateUsdtSendUseCase({
        ...createSteps,
        sends,
        logger: deps.logger.child({ context: 'CreateUsdtSend' }),
        settings: deps.transfers,
      }),
    }),
    PAYOUTS_ACCESS.USDT_SENDS,
  );
  server.add(
    payouts.PayoutsOperatorService,
    payoutsOperatorHandlers({
      instructions,
      stuckAfterMs: deps.runner.stuckAfterMs,
      unlockConfirmations: new UnlockPartnerConfirmationsUseCase({
        dataSource: deps.dataSource,
        budgets,
        logger: deps.logger.child({ context: 'UnlockPartnerConfirmations' }),
      }),
    }),
    PAYOUTS_ACCESS.OPERATOR,
  );
  const pushCreditScheduler = addFunding(server, deps);
  const reconcileHolds = new ReconcileHoldsUseCase({
    dataSource: deps.dataSource,
    transfers,
    sends,
    ledger: deps.ledger,
    logger: deps.logger.child({ context: 'HoldReconciler' }),
    minAgeMs: deps.holdReconciler.minAgeMs,
  });
  const holdReconciler = orphanedHoldsWorker({
    reconcile: reconcileHolds,
    logger: deps.logger,
    intervalMs: deps.holdReconciler.intervalMs,
    ready: allReachable(deps.ledger),
  });
  return {
    server,
    runner,
    schedulers: [transferScheduler, sendScheduler, batchScheduler, pushCreditScheduler] as Array<
      DurableScheduler<unknown>
    >,
    holdReconciler,
    sellProceeds,
  };
}

/** payouts.v1.MobileMoneyFunding (and its sandbox helpers): the mobile-money funding prompt. */
function addFunding(server: GrpcServer, deps: ServerDependencies): DurableScheduler<unknown> {
  const pushes = new MobileMoneyPushesRepository(deps.dataSource);
  const logger = deps.logger.child({ context: 'MobileMoneyFunding' });
  const pushCredits = new PushCredits({ pushes, ledger: deps.ledger, logger });
  server.add(
    payoutsFunding.MobileMoneyFundingService,
    mobileMoneyFundingHandlers({
      listPushes: new ListMobileMoneyPushesUseCase({ pushes }),
      createPush: new CreateMobileMoneyPushUseCase({
        pushes,
        ledger: deps.ledger,
        bank: deps.bank,
        lifetimeMs: deps.funding.pushLifetimeMs,
        logger,
      }),
    }),
    PAYOUTS_ACCESS.FUNDING,
  );
  server.add(
    payoutsFunding.MobileMoneyFundingSandboxService,
    mobileMoneyFundingSandboxHandlers({
      answerPush: deps.funding.mode === 'sandbox' ? new AnswerMobileMoneyPushUseCase(pushes, pushCredits) : null,
    }),
    PAYOUTS_ACCESS.FUNDING_SANDBOX,
  );
  return mobileMoneyCreditWorker({
    dataSource: deps.dataSource,
    logger,
    options: deps.funding.creditScheduler,
    credits: pushCredits,
    ready: allReachable(deps.ledger),
  });
}
