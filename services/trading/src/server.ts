/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { allReachable, COALESCED_BATCH_ITEMS_MAX, createGrpcServer, GrpcServer, TlsMaterial } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { BatchSweeper, DataSource, ListAuditRecordsUseCase } from '@platform/persistence';
import { trading } from '@platform/proto';
import type { KesDebitBank } from './adapters/bank/kes-debit-bank';
import type { RateFeed, SandboxRateControl } from './adapters/rate-feed/rate-feed';
import type { Clock } from './domain/clock';
import { tradingAdminHandlers } from './grpc/trading-admin.handlers';
import { tradingSandboxHandlers } from './grpc/trading-sandbox.handlers';
import { tradingHandlers } from './grpc/trading.handlers';
import { tradingLimitsHandlers } from './grpc/trading-limits.handlers';
import { tradingOperatorHandlers, tradingOrdersHandlers } from './grpc/trading-orders.handlers';
import { tradingSellProceedsHandlers } from './grpc/trading-sell-proceeds.handlers';
import { TRADING_ACCESS } from './grpc/access';
import { CapUsagesRepository } from './persistence/cap-usages.repository';
import { SERVICE_NAME } from './persistence/data-source';
import { OrderIntakeRepository } from './persistence/order-intake.repository';
import { OrdersRepository } from './persistence/orders.repository';
import { PartnerProfilesRepository } from './persistence/partner-profiles.repository';
import { PlatformSwitchesRepository } from './persistence/platform-switches.repository';
import { QuotesRepository } from './persistence/quotes.repository';
import { AdvanceDebitFirstBuyUseCase } from './usecases/advance-debit-first-buy/advance-debit-first-buy.usecase';
import { AdvancePayInBuyUseCase } from './usecases/advance-pay-in-buy/advance-pay-in-buy.usecase';
import { AdvanceSellOrderUseCase } from './usecases/advance-sell-order/advance-sell-order.usecase';
import { AttachTxHashUseCase } from './usecases/attach-tx-hash/attach-tx-hash.usecase';
import { ConfigurePartnerUseCase } from './usecases/configure-partner/configure-partner.usecase';
import { CreateOrderUseCase } from './usecases/create-order/create-order.usecase';
import { DebitFirstFunding } from './usecases/create-order/debit-first.funding';
import { PayInFunding } from './usecases/create-order/pay-in.funding';
import { SellBalanceFunding, SellDepositFunding } from './usecases/create-order/sell.funding';
import { CreateQuoteUseCase } from './usecases/create-quote/create-quote.usecase';
import { FundSellDepositUseCase } from './usecases/fund-sell-deposit/fund-sell-deposit.usecase';
import { GetOrderUseCase } from './usecases/get-order/get-order.usecase';
import { GetOrdersUseCase } from './usecases/get-orders/get-orders.usecase';
import { GetPartnerLimitsUseCase } from './usecases/get-partner-limits/get-partner-limits.usecase';
import { ListOrdersUseCase } from './usecases/list-orders/list-orders.usecase';
import { OrderTransitions, PartnerAccountIds, ServiceAccounts } from './usecases/order-support';
import { RecordSellProceedsOutcomeUseCase } from './usecases/record-sell-proceeds-outcome/record-sell-proceeds-outcome.usecase';
import { ClaimDueSellProceedsUseCase } from './usecases/claim-due-sell-proceeds/claim-due-sell-proceeds.usecase';
import { ReleaseDailyCapUseCase } from './usecases/release-daily-cap/release-daily-cap.usecase';
import { ReserveDailyCapUseCase } from './usecases/reserve-daily-cap/reserve-daily-cap.usecase';
import { AdvanceOrder } from './usecases/run-order-steps/advance-order';
import { OrderScheduler, orderScheduler } from './workers/order.worker';
import { orphanedHoldsWorker } from './workers/orphaned-holds.worker';
import { SetPartnerStatusUseCase, SetPlatformSwitchUseCase } from './usecases/set-switches/set-switches.usecase';
import { SetSandboxRateUseCase } from './usecases/set-sandbox-rate/set-sandbox-rate.usecase';
import type { LedgerApi } from './adapters/peers/peers';
import type { WalletRegistryApi } from './adapters/peers/peers';

export interface OrderTimings {
  /** Every delay and window here is already scaled by SANDBOX_TIME_SCALE. */
  settlementDelayMs: number;
  reconcileDelayMs: number;
  sendWindowMs: number;
  /** How soon payouts may claim a sell order again after reporting its payout accepted. */
  payoutPollMs: number;
  /** How often an awaiting sell order with a hash asks the ledger for its deposit. */
  depositPollMs: number;
  payWindowMs: number;
  paymentPollMs: number;
  schedulerIntervalMs: number;
  schedulerBatchSize: number;
  stepLeaseMs: number;
}

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** This service's mutual-TLS material (its identity), shared with its clients. */
  tls: TlsMaterial;
  clock: Clock;
  rateFeed: RateFeed;
  /** null unless the sandbox feed runs: then the sandbox RPCs answer NOT_FOUND. */
  sandboxRateControl: SandboxRateControl | null;
  quoteLifetimeMs: number;
  rateStalenessLimitMs: number;
  settlementEstimateSeconds: number;
  ledger: LedgerApi;
  walletRegistry: WalletRegistryApi;
  bank: KesDebitBank;
  /** The chain custodian behind balance-mode sells: `none` answers them BRIDGE_NOT_CONFIGURED. */
  usdtCustody: 'sandbox' | 'none';
  orders: OrderTimings;
  /** Kicks the outbox relay after a transaction that enqueued events. */
  onEventsCommitted: () => void;
  holdReconciler: { intervalMs: number; minAgeMs: number };
}

/** The repositories and shared order helpers every order use case is wired with. */
interface OrderWiring {
  repositories: {
    orders: OrdersRepository;
    quotes: QuotesRepository;
    profiles: PartnerProfilesRepository;
    switches: PlatformSwitchesRepository;
    capUsages: CapUsagesRepository;
  };
  serviceAccounts: ServiceAccounts;
  accountIds: PartnerAccountIds;
  transitions: OrderTransitions;
}

export function createServer(deps: ServerDependencies): {
  server: GrpcServer;
  scheduler: OrderScheduler;
  holdReconciler: BatchSweeper;
} {
  const server = createGrpcServer(deps.logger, deps.tls);
  const repositories = {
    orders: new OrdersRepository(deps.dataSource),
    quotes: new QuotesRepository(deps.dataSource),
    profiles: new PartnerProfilesRepository(deps.dataSource),
    switches: new PlatformSwitchesRepository(deps.dataSource),
    capUsages: new CapUsagesRepository(),
  };
  const wiring: OrderWiring = {
    repositories,
    serviceAccounts: new ServiceAccounts(deps.ledger),
    accountIds: new PartnerAccountIds(deps.ledger),
    transitions: new OrderTransitions({
      dataSource: deps.dataSource,
      orders: repositories.orders,
      onEvents: deps.onEventsCommitted,
    }),
  };
  server.add(
    trading.TradingService,
    tradingHandlers({
      createQuote: new CreateQuoteUseCase({
        profiles: repositories.profiles,
        quotes: repositories.quotes,
        rateFeed: deps.rateFeed,
        clock: deps.clock,
        logger: deps.logger.child({ context: 'CreateQuote' }),
        quoteLifetimeMs: deps.quoteLifetimeMs,
        rateStalenessLimitMs: deps.rateStalenessLimitMs,
        settlementEstimateSeconds: deps.settlementEstimateSeconds,
      }),
    }),
    TRADING_ACCESS.TRADING,
  );
  server.add(
    trading.TradingAdminService,
    tradingAdminHandlers({
      configurePartner: new ConfigurePartnerUseCase(deps.dataSource, repositories.profiles),
    }),
    TRADING_ACCESS.TRADING_ADMIN,
  );
  server.add(
    trading.TradingSandboxService,
    tradingSandboxHandlers({
      setSandboxRate: deps.sandboxRateControl ? new SetSandboxRateUseCase(deps.sandboxRateControl) : null,
    }),
    TRADING_ACCESS.TRADING_SANDBOX,
  );
  // TradingDeposits (the ledger's offer of a deposit) is no longer served: the ledger attributes deposits itself.
  const fundSellDeposit = new FundSellDepositUseCase({
    orders: repositories.orders,
    transitions: wiring.transitions,
    clock: deps.clock,
  });
  server.add(
    trading.TradingLimitsService,
    tradingLimitsHandlers({
      reserveDailyCap: new ReserveDailyCapUseCase({
        dataSource: deps.dataSource,
        profiles: repositories.profiles,
        switches: repositories.switches,
        rateFeed: deps.rateFeed,
        clock: deps.clock,
        logger: deps.logger.child({ context: 'ReserveDailyCap' }),
        rateStalenessLimitMs: deps.rateStalenessLimitMs,
      }),
      releaseDailyCap: new ReleaseDailyCapUseCase(deps.dataSource),
      getPartnerLimits: new GetPartnerLimitsUseCase(deps.dataSource, deps.clock),
    }),
    TRADING_ACCESS.TRADING_LIMITS,
  );
  const balanceFunding = new SellBalanceFunding(
    { ledger: deps.ledger, transitions: wiring.transitions, clock: deps.clock, sendWindowMs: deps.orders.sendWindowMs },
    deps.usdtCustody,
  );
  server.add(
    trading.TradingOrdersService,
    tradingOrdersHandlers({
      createOrder: createOrderUseCase(deps, wiring, balanceFunding),
      getOrder: new GetOrderUseCase(repositories.orders),
      getOrders: new GetOrdersUseCase(repositories.orders, COALESCED_BATCH_ITEMS_MAX),
      listOrders: new ListOrdersUseCase(repositories.orders),
      attachTxHash: new AttachTxHashUseCase({
        dataSource: deps.dataSource,
        orders: repositories.orders,
        ledger: deps.ledger,
        fundSellDeposit,
        clock: deps.clock,
        logger: deps.logger.child({ context: 'AttachTxHash' }),
        depositPollMs: deps.orders.depositPollMs,
      }),
    }),
    TRADING_ACCESS.TRADING_ORDERS,
  );
  server.add(
    trading.TradingOperatorService,
    tradingOperatorHandlers({
      setPartnerStatus: new SetPartnerStatusUseCase(deps.dataSource, repositories.profiles),
      setPlatformSwitch: new SetPlatformSwitchUseCase(deps.dataSource, repositories.switches),
      listAuditRecords: new ListAuditRecordsUseCase(deps.dataSource, SERVICE_NAME),
    }),
    TRADING_ACCESS.TRADING_OPERATOR,
  );
  server.add(
    trading.TradingSellProceedsService,
    tradingSellProceedsHandlers({
      claimDueSellProceeds: new ClaimDueSellProceedsUseCase({
        dataSource: deps.dataSource,
        orders: repositories.orders,
        leaseMs: deps.orders.stepLeaseMs,
      }),
      recordSellProceedsOutcome: new RecordSellProceedsOutcomeUseCase({
        orders: repositories.orders,
        ledger: deps.ledger,
        serviceAccounts: wiring.serviceAccounts,
        accountIds: wiring.accountIds,
        transitions: wiring.transitions,
        clock: deps.clock,
        logger: deps.logger.child({ context: 'RecordSellProceedsOutcome' }),
        payoutPollMs: deps.orders.payoutPollMs,
      }),
    }),
    TRADING_ACCESS.TRADING_SELL_PROCEEDS,
  );
  const scheduler = orderScheduler(
    deps.dataSource,
    repositories.orders,
    orderSteps(deps, wiring, balanceFunding, fundSellDeposit),
    deps.logger.child({ context: 'OrderScheduler' }),
    {
      intervalMs: deps.orders.schedulerIntervalMs,
      batchSize: deps.orders.schedulerBatchSize,
      leaseMs: deps.orders.stepLeaseMs,
    },
    allReachable(deps.ledger),
  );
  return {
    server,
    scheduler,
    holdReconciler: orphanedHoldsWorker({
      orders: repositories.orders,
      ledger: deps.ledger,
      logger: deps.logger,
      intervalMs: deps.holdReconciler.intervalMs,
      minAgeMs: deps.holdReconciler.minAgeMs,
    }),
  };
}

/** The one creation path, with a funding strategy for each kind of order. */
function createOrderUseCase(
  deps: ServerDependencies,
  wiring: OrderWiring,
  balanceFunding: SellBalanceFunding,
): CreateOrderUseCase {
  const { repositories } = wiring;
  const debitFirst = new DebitFirstFunding({
    dataSource: deps.dataSource,
    ledger: deps.ledger,
    bank: deps.bank,
    transitions: wiring.transitions,
    orders: repositories.orders,
    quotes: repositories.quotes,
    capUsages: repositories.capUsages,
    clock: deps.clock,
    logger: deps.logger.child({ context: 'DebitFirstFunding' }),
    settlementDelayMs: deps.orders.settlementDelayMs,
    reconcileDelayMs: deps.orders.reconcileDelayMs,
  });
  const payIn = new PayInFunding({
    ledger: deps.ledger,
    walletRegistry: deps.walletRegistry,
    payWindowMs: deps.orders.payWindowMs,
    paymentPollMs: deps.orders.paymentPollMs,
    usdtCustody: deps.usdtCustody,
  });
  const deposit = new SellDepositFunding({
    ledger: deps.ledger,
    transitions: wiring.transitions,
    clock: deps.clock,
    sendWindowMs: deps.orders.sendWindowMs,
  });
  return new CreateOrderUseCase({
    intake: new OrderIntakeRepository(deps.dataSource),
    orders: repositories.orders,
    ledger: deps.ledger,
    accountIds: wiring.accountIds,
    clock: deps.clock,
    strategies: [debitFirst, payIn, deposit, balanceFunding],
  });
}

/** The scheduled steps of every kind, dispatched by the order scheduler. */
function orderSteps(
  deps: ServerDependencies,
  wiring: OrderWiring,
  balanceFunding: SellBalanceFunding,
  fundSellDeposit: FundSellDepositUseCase,
): AdvanceOrder {
  const shared = {
    serviceAccounts: wiring.serviceAccounts,
    accountIds: wiring.accountIds,
    transitions: wiring.transitions,
    clock: deps.clock,
  };
  return new AdvanceOrder({
    debitFirstBuy: new AdvanceDebitFirstBuyUseCase({
      ...shared,
      ledger: deps.ledger,
      bank: deps.bank,
      logger: deps.logger.child({ context: 'AdvanceDebitFirstBuy' }),
      settlementDelayMs: deps.orders.settlementDelayMs,
    }),
    payInBuy: new AdvancePayInBuyUseCase({
      ...shared,
      ledger: deps.ledger,
      walletRegistry: deps.walletRegistry,
      logger: deps.logger.child({ context: 'AdvancePayInBuy' }),
      paymentPollMs: deps.orders.paymentPollMs,
      settlementDelayMs: deps.orders.settlementDelayMs,
    }),
    sell: new AdvanceSellOrderUseCase({
      ...shared,
      ledger: deps.ledger,
      balanceFunding,
      fundSellDeposit,
      logger: deps.logger.child({ context: 'AdvanceSellOrder' }),
      depositPollMs: deps.orders.depositPollMs,
    }),
  });
}
