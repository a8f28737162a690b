/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { AmqpConnection, OutboxRelay } from '@platform/events';
import { createClient, loadServiceTls, runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { observeDatabasePool } from '@platform/metrics';
import { initializeWithRetry, sleep } from '@platform/persistence';
import { Big } from '@platform/money';
import { ledger, notifier, trading, walletRegistry } from '@platform/proto';
import { startTracing } from '@platform/tracing';
import { SandboxBank, UnconfiguredBank } from './adapters/bank/sandbox-bank';
import { SandboxChainCustodian, UnconfiguredChainCustodian } from './adapters/chain/sandbox-chain-custodian';
import {
  confirmationLifetimeMs,
  pushLifetimeMs,
  readConfig,
  sandboxChainDelayMs,
  sandboxSettleDelayMs,
  wrongCodeBudget,
} from './config';
import { payoutsDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';

/** How long shutdown lets the relay finish its in-flight batch before closing the broker connection under it. */
const RELAY_DRAIN_MS_MAX = 3_000;

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
  const dataSource = await initializeWithRetry(payoutsDataSource(config.DATABASE_URL), logger);
  observeDatabasePool(dataSource);
  // The broker is not awaited: events wait in the outbox while it is away, so
  // payouts can serve without it; the connection retries in the background.
  const amqp = new AmqpConnection(config.AMQP_URL, logger.child({ context: 'AmqpConnection' }));
  void amqp.connect().catch(() => undefined);
  const relay = new OutboxRelay(dataSource, amqp, logger.child({ context: 'OutboxRelay' }));
  relay.start();
  const ledgerClient = createClient(ledger.LedgerService, {
    upstream: 'ledger',
    tls: tls.client('ledger'),
    address: config.LEDGER_GRPC_ADDR,
    logger,
  });
  const tradingClient = createClient(trading.TradingLimitsService, {
    upstream: 'trading',
    tls: tls.client('trading'),
    address: config.TRADING_GRPC_ADDR,
    logger,
  });
  const walletRegistryClient = createClient(walletRegistry.WalletRegistryService, {
    upstream: 'wallet-registry',
    tls: tls.client('wallet-registry'),
    address: config.WALLET_REGISTRY_GRPC_ADDR,
    logger,
  });
  const notifierClient = createClient(notifier.NotifierService, {
    upstream: 'notifier',
    tls: tls.client('notifier'),
    address: config.NOTIFIER_GRPC_ADDR,
    logger,
  });
  const bank =
    config.PLATFORM_MODE === 'sandbox' ? new SandboxBank(sandboxSettleDelayMs(config)) : new UnconfiguredBank();
  const { server, runner, schedulers, holdReconciler } = createServer({
    dataSource,
    logger,
    tls,
    ledger: ledgerClient,
    trading: tradingClient,
    walletRegistry: walletRegistryClient,
    notifier: notifierClient,
    bank,
    chain:
      config.PLATFORM_MODE === 'sandbox'
        ? new SandboxChainCustodian(sandboxChainDelayMs(config))
        : new UnconfiguredChainCustodian(),
    runner: {
      intervalMs: config.PAYOUT_RUNNER_INTERVAL_MS,
      batchSize: config.PAYOUT_RUNNER_BATCH_SIZE,
      leaseMs: config.PAYOUT_STEP_LEASE_MS,
      statusPollMs: config.PAYOUT_STATUS_POLL_MS,
      stuckAfterMs: config.PAYOUT_STUCK_AFTER_MS,
    },
    scheduler: {
      intervalMs: config.TRANSFER_SCHEDULER_INTERVAL_MS,
      batchSize: config.TRANSFER_SCHEDULER_BATCH_SIZE,
      leaseMs: config.PAYOUT_STEP_LEASE_MS,
    },
    transfers: {
      feeKes: new Big(config.TRANSFER_FEE_FLAT_KES),
      perTransferCapKes: new Big(config.TRANSFER_CAP_KES),
      codeLifetimeMs: confirmationLifetimeMs(config),
      timeScale: config.SANDBOX_TIME_SCALE,
      createLeaseMs: config.TRANSFER_CREATE_LEASE_MS,
      codeHashKeyHex: config.CODE_HASH_KEY,
      minimumUsdt: new Big(config.USDT_SEND_MIN_USDT),
      capUsdt: new Big(config.USDT_SEND_CAP_USDT),
    },
    wrongCodeBudget: wrongCodeBudget(config),
    funding: {
      mode: config.PLATFORM_MODE,
      pushLifetimeMs: pushLifetimeMs(config),
      creditScheduler: {
        intervalMs: config.MOBILE_MONEY_CREDIT_INTERVAL_MS,
        batchSize: config.PAYOUT_RUNNER_BATCH_SIZE,
        leaseMs: config.PAYOUT_STEP_LEASE_MS,
      },
    },
    holdReconciler: { intervalMs: config.HOLD_RECONCILE_INTERVAL_MS, minAgeMs: config.HOLD_RECONCILE_MIN_AGE_MS },
  });
  runner.start();
  for (const scheduler of schedulers) scheduler.start();
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
      await runner.stop();
      await Promise.all([...schedulers.map((scheduler) => scheduler.stop()), holdReconciler.stop()]);
      ledgerClient.close();
      tradingClient.close();
      walletRegistryClient.close();
      notifierClient.close();
      const relayStopped = relay.stop();
      await Promise.race([relayStopped, sleep(RELAY_DRAIN_MS_MAX)]);
      // Closing the connection also ends a connect attempt the relay may still be waiting on.
      await amqp.close();
      await relayStopped;
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
