/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { trading } from '@platform/proto';
import type { RateFeed, SandboxRateControl } from './adapters/rate-feed/rate-feed';
import type { Clock } from './domain/clock';
import { tradingAdminHandlers } from './grpc/trading-admin.handlers';
import { tradingSandboxHandlers } from './grpc/trading-sandbox.handlers';
import { tradingHandlers } from './grpc/trading.handlers';
import { tradingDepositsHandlers } from './grpc/trading-deposits.handlers';
import { tradingLimitsHandlers } from './grpc/trading-limits.handlers';
import { GetPartnerLimitsUseCase } from './usecases/get-partner-limits/get-partner-limits.usecase';
import { ReleaseDailyCapUseCase } from './usecases/release-daily-cap/release-daily-cap.usecase';
import { ReserveDailyCapUseCase } from './usecases/reserve-daily-cap/reserve-daily-cap.usecase';
import { OfferUsdtDepositUseCase } from './usecases/offer-usdt-deposit/offer-usdt-deposit.usecase';
import { PartnerProfilesRepository } from './persistence/partner-profiles.repository';
import { QuotesRepository } from './persistence/quotes.repository';
import { ConfigurePartnerUseCase } from './usecases/configure-partner/configure-partner.usecase';
import { CreateQuoteUseCase } from './usecases/create-quote/create-quote.usecase';
import { SetSandboxRateUseCase } from './usecases/set-sandbox-rate/set-sandbox-rate.usecase';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  clock: Clock;
  rateFeed: RateFeed;
  /** null unless the sandbox feed runs: then the sandbox RPCs answer NOT_FOUND. */
  sandboxRateControl: SandboxRateControl | null;
  quoteLifetimeMs: number;
  rateStalenessLimitMs: number;
  settlementEstimateSeconds: number;
}

export function createServer(deps: ServerDependencies): GrpcServer {
  const server = createGrpcServer(deps.logger);
  const profiles = new PartnerProfilesRepository(deps.dataSource);
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
  }));
  server.add(trading.TradingAdminService, tradingAdminHandlers({
    configurePartner: new ConfigurePartnerUseCase(profiles),
  }));
  server.add(trading.TradingSandboxService, tradingSandboxHandlers({
    setSandboxRate: deps.sandboxRateControl ? new SetSandboxRateUseCase(deps.sandboxRateControl) : null,
  }));
  server.add(trading.TradingDepositsService, tradingDepositsHandlers({ offerUsdtDeposit: new OfferUsdtDepositUseCase() }));
  server.add(trading.TradingLimitsService, tradingLimitsHandlers({
    reserveDailyCap: new ReserveDailyCapUseCase({
      dataSource: deps.dataSource,
      rateFeed: deps.rateFeed,
      clock: deps.clock,
      logger: deps.logger.child({ context: 'ReserveDailyCap' }),
      rateStalenessLimitMs: deps.rateStalenessLimitMs,
    }),
    releaseDailyCap: new ReleaseDailyCapUseCase(deps.dataSource),
    getPartnerLimits: new GetPartnerLimitsUseCase(deps.dataSource),
  }));
  return server;
}
