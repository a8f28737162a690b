/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { AmqpConnection, OutboxRelay } from '@platform/events';
import { createClient, loadServiceTls, runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { observeDatabasePool } from '@platform/metrics';
import { initializeWithRetry } from '@platform/persistence';
import { ledger, payouts, walletRegistry } from '@platform/proto';
import { startTracing } from '@platform/tracing';
import { SandboxKesDebitBank, UnconfiguredKesDebitBank } from './adapters/bank/kes-debit-bank';
import { createRateFeed } from './adapters/rate-feed/create-rate-feed';
import { configuredQuoteLifetimeMs, rateFeedConfig, readConfig, scaledMs } from './config';
import { systemClock } from './domain/clock';
import { SandboxRateOverridesRepository } from './persistence/sandbox-rate-overrides.repository';
import { SERVICE_NAME, tradingDataSource } from './persistence/data-source';
import { createServer } from './server';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const tracing = startTracing({
    service: SERVICE_NAME,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    sampleRatio: config.OTEL_TRACES_SAMPLER_ARG,
  });
  // Refuses to start on unusable TLS files, or ones naming another identity.
  const tls = loadServiceTls(config, SERVICE_NAME, logger);
  const dataSource = await initializeWithRetry(tradingDataSource(config.DATABASE_URL), logger);
  observeDatabasePool(dataSource);
  const rateFeed = createRateFeed(rateFeedConfig(config), {
    overrides: new SandboxRateOverridesRepository(dataSource),
    clock: systemClock,
    logger,
  });
  rateFeed.start();
  const amqp = new AmqpConnection(config.AMQP_URL, logger.child({ context: 'amqp' }));
  // The relay connects lazily and retries: orders proceed while the broker is away; events wait in the outbox.
  const relay = new OutboxRelay(dataSource, amqp, logger.child({ context: 'OutboxRelay' }), {
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
  });
  relay.start();
  const ledgerClient = createClient(ledger.LedgerService, {
    upstream: 'ledger',
    tls: tls.client('ledger'),
    address: config.LEDGER_GRPC_ADDR,
    logger,
  });
  const payoutsClient = createClient(payouts.OrderPayoutsService, {
    upstream: 'payouts',
    tls: tls.client('payouts'),
    address: config.PAYOUTS_GRPC_ADDR,
    logger,
  });
  const walletRegistryClient = createClient(walletRegistry.WalletRegistryService, {
    upstream: 'wallet-registry',
    tls: tls.client('wallet-registry'),
    address: config.WALLET_REGISTRY_GRPC_ADDR,
    logger,
  });
  const { server, scheduler, holdReconciler } = createServer({
    dataSource,
    logger,
    tls,
    clock: systemClock,
    rateFeed: rateFeed.feed,
    sandboxRateControl: rateFeed.sandboxControl,
    quoteLifetimeMs: configuredQuoteLifetimeMs(config),
    rateStalenessLimitMs: config.RATE_STALENESS_LIMIT_MS,
    settlementEstimateSeconds: config.SETTLEMENT_ESTIMATE_SECONDS,
    ledger: ledgerClient,
    payouts: payoutsClient,
    walletRegistry: walletRegistryClient,
    // The real bank's debit API is not integrated yet: in production every debit is cleanly refused.
    bank: config.PLATFORM_MODE === 'sandbox' ? new SandboxKesDebitBank() : new UnconfiguredKesDebitBank(),
    // No chain custodian is integrated yet: in production balance-mode sells answer BRIDGE_NOT_CONFIGURED.
    usdtCustody: config.PLATFORM_MODE === 'sandbox' ? 'sandbox' : 'none',
    orders: {
      settlementDelayMs: scaledMs(config, config.ORDER_SETTLEMENT_DELAY_MS),
      reconcileDelayMs: scaledMs(config, config.ORDER_DEBIT_RECONCILE_DELAY_MS),
      sendWindowMs: scaledMs(config, config.ORDER_SEND_WINDOW_MS),
      payoutPollMs: config.ORDER_PAYOUT_POLL_MS,
      depositPollMs: config.ORDER_DEPOSIT_POLL_MS,
      payWindowMs: scaledMs(config, config.ORDER_PAY_WINDOW_MS),
      paymentPollMs: config.ORDER_PAYMENT_POLL_MS,
      schedulerIntervalMs: config.ORDER_SCHEDULER_INTERVAL_MS,
      schedulerBatchSize: config.ORDER_SCHEDULER_BATCH_SIZE,
      stepLeaseMs: config.ORDER_STEP_LEASE_MS,
    },
    onEventsCommitted: () => relay.kick(),
    holdReconciler: { intervalMs: config.HOLD_RECONCILE_INTERVAL_MS, minAgeMs: config.HOLD_RECONCILE_MIN_AGE_MS },
  });
  scheduler.start();
  holdReconciler.start();
  await runService({
    logger,
    server,
    grpcPort: config.GRPC_PORT,
    grpcHost: config.GRPC_HOST,
    healthPort: config.HEALTH_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    metrics: { port: config.METRICS_PORT, host: config.HTTP_HOST },
    stop: async () => {
      rateFeed.stop();
      await Promise.all([scheduler.stop(), holdReconciler.stop()]);
      ledgerClient.close();
      payoutsClient.close();
      walletRegistryClient.close();
      await relay.stop();
      await amqp.close();
      await dataSource.destroy();
      // Last: spans of the drained calls are exported (bounded) before the process ends.
      await tracing.shutdown();
    },
  });
}

main().catch((error) => {
  createLogger(SERVICE_NAME).error('failed to start', { error });
  process.exit(1);
});
