/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
import { AmqpConnection, OutboxRelay } from '@platform/events';
import { createClient, runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { initializeWithRetry, sleep } from '@platform/persistence';
import { ledger } from '@platform/proto';
import { SandboxBank, UnconfiguredBank } from './adapters/bank/sandbox-bank';
import { pushLifetimeMs, readConfig, sandboxSettleDelayMs } from './config';
import { payoutsDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';

/** How long shutdown lets the relay finish its in-flight batch before closing the broker connection under it. */
const RELAY_DRAIN_MS_MAX = 3_000;

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const dataSource = await initializeWithRetry(payoutsDataSource(config.DATABASE_URL), logger);
  // The broker is not awaited: events wait in the outbox while it is away, so
  // payouts can serve without it; the connection retries in the background.
  const amqp = new AmqpConnection(config.AMQP_URL, logger.child({ context: 'AmqpConnection' }));
  void amqp.connect().catch(() => undefined);
  const relay = new OutboxRelay(dataSource, amqp, logger.child({ context: 'OutboxRelay' }));
  relay.start();
  const ledgerClient = createClient(ledger.LedgerService, { upstream: 'ledger', address: config.LEDGER_GRPC_ADDR, logger });
  const bank = config.PLATFORM_MODE === 'sandbox' ? new SandboxBank(sandboxSettleDelayMs(config)) : new UnconfiguredBank();
  const { server, runner, pushCredits } = createServer({
    dataSource,
    logger,
    ledger: ledgerClient,
    bank,
    runner: {
      intervalMs: config.PAYOUT_RUNNER_INTERVAL_MS,
      batchSize: config.PAYOUT_RUNNER_BATCH_SIZE,
      leaseMs: config.PAYOUT_STEP_LEASE_MS,
      statusPollMs: config.PAYOUT_STATUS_POLL_MS,
    },
    funding: {
      mode: config.PLATFORM_MODE,
      pushLifetimeMs: pushLifetimeMs(config),
      creditRunner: { intervalMs: config.MOBILE_MONEY_CREDIT_INTERVAL_MS, batchSize: config.PAYOUT_RUNNER_BATCH_SIZE, leaseMs: config.PAYOUT_STEP_LEASE_MS },
    },
  });
  runner.start();
  pushCredits.start();
  await runService({
    logger,
    server,
    grpcPort: config.GRPC_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    stop: async () => {
      await runner.stop();
      await pushCredits.stop();
      ledgerClient.close();
      const relayStopped = relay.stop();
      await Promise.race([relayStopped, sleep(RELAY_DRAIN_MS_MAX)]);
      // Closing the connection also ends a connect attempt the relay may still be waiting on.
      await amqp.close();
      await relayStopped;
      await dataSource.destroy();
    },
  });
}

main().catch((error) => {
  createLogger(SERVICE_NAME).error('failed to start', { error });
  process.exit(1);
});
