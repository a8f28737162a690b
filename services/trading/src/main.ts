/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
import { runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { initializeWithRetry } from '@platform/persistence';
import { createRateFeed } from './adapters/rate-feed/create-rate-feed';
import { configuredQuoteLifetimeMs, rateFeedConfig, readConfig } from './config';
import { systemClock } from './domain/clock';
import { SandboxRateOverridesRepository } from './persistence/sandbox-rate-overrides.repository';
import { SERVICE_NAME, tradingDataSource } from './persistence/data-source';
import { createServer } from './server';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const dataSource = await initializeWithRetry(tradingDataSource(config.DATABASE_URL), logger);
  const rateFeed = createRateFeed(rateFeedConfig(config), {
    overrides: new SandboxRateOverridesRepository(dataSource),
    clock: systemClock,
    logger,
  });
  rateFeed.start();
  const server = createServer({
    dataSource,
    logger,
    clock: systemClock,
    rateFeed: rateFeed.feed,
    sandboxRateControl: rateFeed.sandboxControl,
    quoteLifetimeMs: configuredQuoteLifetimeMs(config),
    rateStalenessLimitMs: config.RATE_STALENESS_LIMIT_MS,
    settlementEstimateSeconds: config.SETTLEMENT_ESTIMATE_SECONDS,
  });
  await runService({
    logger,
    server,
    grpcPort: config.GRPC_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    stop: async () => {
      rateFeed.stop();
      await dataSource.destroy();
    },
  });
}

main().catch((error) => {
  createLogger(SERVICE_NAME).error('failed to start', { error });
  process.exit(1);
});
