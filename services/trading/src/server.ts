/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer, TlsMaterial } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { BatchSweeper, DataSource, ListAuditRecordsUseCase } from '@platform/persistence';
import { trading } from '@platform/proto';
import type { KesDebitBank } from './adapters/bank/kes-debit-bank';
import type { RateFeed, SandboxRateControl } from './adapters/rate-feed/rate-feed';
import type { Clock } from './domain/clock';
import { tradingAdminHandlers } from './grpc/trading-admin.handlers';
import { tradingSandboxHandlers } from './grpc/trading-sandbox.handlers';
import { tradingHandlers } from './grpc/trading.handlers';
import { tradingDepositsHandlers } from './grpc/trading-deposits.handlers';
import { tradingLimitsHandlers } from './grpc/trading-limits.handlers';
import { tradingOperatorHandlers, tradingOrdersHandlers } from './grpc/trading-orders.handlers';
import { GetPartnerLimitsUseCase } from './usecases/get-partner-limits/get-partner-limits.usecase';
import { ReleaseDailyCapUseCase } from './usecases/release-daily-cap/release-daily-cap.usecase';
import { ReserveDailyCapUseCase } from './usecases/reserve-daily-cap/reserve-daily-cap.usecase';
import { OfferUsdtDepositUseCase } from './usecases/offer-usdt-deposit/offer-usdt-deposit.usecase';
import { PartnerProfilesRepository } from './persistence/partner-profiles.repository';
import { PlatformSwitchesRepository } from './persistence/platform-switches.repository';
import { QuotesRepository } from './persistence/quotes.repository';
import { SERVICE_NAME } from './persistence/data-source';
import { ConfigurePartnerUseCase } from './usecases/configure-partner/configure-partner.usecase';
import { CreateBuyOrderUseCase } from './usecases/create-buy-order/create-buy-order.usecase';
import { CreateQuoteUseCase } from './usecases/create-quote/create-quote.usecase';
import { GetOrderUseCase } from './usecases/get-order/get-order.usecase';
import { ListOrdersUseCase } from './usecases/list-orders/list-orders.usecase';
import { LedgerApi, ServiceAccounts } from './usecases/order-support';
import { AdvanceOrder } from './usecases/run-order-steps/advance-order';
import { OrderScheduler, orderScheduler } from './usecases/run-order-steps/order-scheduler';
import { ReconcileHoldsUseCase } from './usecases/reconcile-holds/reconcile-holds.usecase';
import { orderStatusesOf } from './persistence/orders.repository';
import { SetPartnerStatusUseCase, SetPlatformSwitchUseCase } from './usecases/set-switches/set-switches.usecase';
import { SetSandboxRateUseCase } from './usecases/set-sandbox-rate/set-sandbox-rate.usecase';
import { PayoutsApi, SellOrders } from './usecases/sell-orders/sell-orders';
import { PayInBuyOrders, WalletRegistryApi } from './usecases/pay-in-buy/pay-in-buy-orders';
import { TRADING_ACCESS } from './grpc/access';

export interface OrderTimings {
  /** Every delay and window here is already scaled by SANDBOX_TIME_SCALE. */
  settlementDelayMs: number;
  reconcileDelayMs: number;
  sendWindowMs: number;
  payoutPollMs: number;
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
  payouts: PayoutsApi;
  walletRegistry: WalletRegistryApi;
  bank: KesDebitBank;
  /** The chain custodian behind balance-mode sells: `none` answers them BRIDGE_NOT_CONFIGURED. */
  usdtCustody: 'sandbox' | 'none';
  orders: OrderTimings;
  /** Kicks the outbox relay after a transaction that enqueued events. */
  onEventsCommitted: () => void;
  holdReconciler: { intervalMs: number; minAgeMs: number };
}

/** Holds looked at per ledger call of the hold reconciler (the ledger allows up to 500). */
const HOLD_RECONCILE_PAGE_SIZE = 100;

export function createServer(deps: ServerDependencies): { server: GrpcServer; scheduler: OrderScheduler; holdReconciler: BatchSweeper } {
  const server = createGrpcServer(deps.logger, deps.tls);
  const profiles = new PartnerProfilesRepository(deps.dataSource);
  const switches = new PlatformSwitchesRepository(deps.dataSource);
  const serviceAccounts = new ServiceAccounts(deps.ledger);
  server.add(trading.TradingService, tradingHandlers({
    createQuote: new CreateQuoteUseCase({
      profiles,
      quotes: new QuotesRepository(deps.dataSource),
      rateFeed: deps.rateFeed,
      clock: deps.clock,
      logger: deps.logger.child({ context: 'CreateQuote' }),
      quoteLifetimeMs: deps.quoteLifetimeMs,
      rateStalenessLimitMs: deps.rateStalenessLimitMs,
      settlementEstimateSeconds: deps.settlementEstimateSeconds,
    }),
  }), TRADING_ACCESS.TRADING);
  server.add(trading.TradingAdminService, tradingAdminHandlers({
    configurePartner: new ConfigurePartnerUseCase(deps.dataSource, profiles),
  }), TRADING_ACCESS.TRADING_ADMIN);
  server.add(trading.TradingSandboxService, tradingSandboxHandlers({
    setSandboxRate: deps.sandboxRateControl ? new SetSandboxRateUseCase(deps.sandboxRateControl) : null,
  }), TRADING_ACCESS.TRADING_SANDBOX);
  const sell = new SellOrders({
    dataSource: deps.dataSource,
    ledger: deps.ledger,
    switches,
    serviceAccounts,
    clock: deps.clock,
    logger: deps.logger.child({ context: 'SellOrders' }),
    sendWindowMs: deps.orders.sendWindowMs,
    payouts: deps.payouts,
    payoutPollMs: deps.orders.payoutPollMs,
    usdtCustody: deps.usdtCustody,
    onEvents: deps.onEventsCommitted,
  });
  const payIn = new PayInBuyOrders({
    dataSource: deps.dataSource,
    ledger: deps.ledger,
    walletRegistry: deps.walletRegistry,
    serviceAccounts,
    clock: deps.clock,
    logger: deps.logger.child({ context: 'PayInBuyOrders' }),
    payWindowMs: deps.orders.payWindowMs,
    paymentPollMs: deps.orders.paymentPollMs,
    settlementDelayMs: deps.orders.settlementDelayMs,
    usdtCustody: deps.usdtCustody,
    onEvents: deps.onEventsCommitted,
  });
  server.add(trading.TradingDepositsService, tradingDepositsHandlers({ offerUsdtDeposit: new OfferUsdtDepositUseCase(sell) }), TRADING_ACCESS.TRADING_DEPOSITS);
  server.add(trading.TradingLimitsService, tradingLimitsHandlers({
    reserveDailyCap: new ReserveDailyCapUseCase({
      dataSource: deps.dataSource,
      switches,
      rateFeed: deps.rateFeed,
      clock: deps.clock,
      logger: deps.logger.child({ context: 'ReserveDailyCap' }),
      rateStalenessLimitMs: deps.rateStalenessLimitMs,
    }),
    releaseDailyCap: new ReleaseDailyCapUseCase(deps.dataSource),
    getPartnerLimits: new GetPartnerLimitsUseCase(deps.dataSource, deps.clock),
  }), TRADING_ACCESS.TRADING_LIMITS);
  server.add(trading.TradingOrdersService, tradingOrdersHandlers({
    createBuyOrder: new CreateBuyOrderUseCase({
      dataSource: deps.dataSource,
      ledger: deps.ledger,
      switches,
      bank: deps.bank,
      clock: deps.clock,
      logger: deps.logger.child({ context: 'CreateBuyOrder' }),
      settlementDelayMs: deps.orders.settlementDelayMs,
      reconcileDelayMs: deps.orders.reconcileDelayMs,
      onEvents: deps.onEventsCommitted,
      payIn,
    }),
    getOrder: new GetOrderUseCase(deps.dataSource),
    listOrders: new ListOrdersUseCase(deps.dataSource),
    sell,
  }), TRADING_ACCESS.TRADING_ORDERS);
  server.add(trading.TradingOperatorService, tradingOperatorHandlers({
    setPartnerStatus: new SetPartnerStatusUseCase(deps.dataSource),
    setPlatformSwitch: new SetPlatformSwitchUseCase(deps.dataSource, switches),
    listAuditRecords: new ListAuditRecordsUseCase(deps.dataSource, SERVICE_NAME),
  }), TRADING_ACCESS.TRADING_OPERATOR);
  const advance = new AdvanceOrder({
    dataSource: deps.dataSource,
    ledger: deps.ledger,
    serviceAccounts,
    bank: deps.bank,
    clock: deps.clock,
    logger: deps.logger.child({ context: 'AdvanceOrder' }),
    settlementDelayMs: deps.orders.settlementDelayMs,
    onEvents: deps.onEventsCommitted,
    extraSteps: [sell, payIn],
  });
  const scheduler = orderScheduler(deps.dataSource, advance, deps.logger.child({ context: 'OrderScheduler' }), {
    intervalMs: deps.orders.schedulerIntervalMs,
    batchSize: deps.orders.schedulerBatchSize,
    leaseMs: deps.orders.stepLeaseMs,
  });
  return { server, scheduler, holdReconciler: holdReconcilerOf(deps) };
}

/** Voids trading's orphaned ledger holds; started by main, stopped at shutdown. */
function holdReconcilerOf(deps: ServerDependencies): BatchSweeper {
  const logger = deps.logger.child({ context: 'HoldReconciler' });
  const reconcile = new ReconcileHoldsUseCase({
    orderStatuses: (orderIds) => orderStatusesOf(deps.dataSource.manager, orderIds), ledger: deps.ledger, logger, minAgeMs: deps.holdReconciler.minAgeMs,
  });
  return new BatchSweeper('trading holds', (size) => reconcile.execute(size), logger,
    { intervalMs: deps.holdReconciler.intervalMs, batchSize: HOLD_RECONCILE_PAGE_SIZE }, { worker: 'orphaned_holds' });
}
