/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { startOutboxPublishing } from '@platform/events';
import { bootService } from '@platform/grpc';
import { ledger, walletRegistry } from '@platform/proto';
import { SandboxKesDebitBank, UnconfiguredKesDebitBank } from './adapters/bank/kes-debit-bank';
import { createRateFeed } from './adapters/rate-feed/create-rate-feed';
import { configuredQuoteLifetimeMs, rateFeedConfig, readConfig, scaledMs } from './config';
import { systemClock } from './domain/clock';
import { SandboxRateOverridesRepository } from './persistence/sandbox-rate-overrides.repository';
import { SERVICE_NAME, tradingDataSource } from './persistence/data-source';
import { createServer } from './server';
import { tradingRetentionRules } from './workers/retention.worker';

bootService({
  service: SERVICE_NAME,
  readConfig,
  dataSource: tradingDataSource,
  retention: (config) =>
    tradingRetentionRules({
      outboxRetentionMs: config.OUTBOX_RETENTION_MS,
      quoteRetentionMs: config.QUOTE_RETENTION_MS,
    }),
  start: async ({ config, logger, tls, dataSource, peer }) => {
    const rateFeed = createRateFeed(rateFeedConfig(config), {
      overrides: new SandboxRateOverridesRepository(dataSource),
      clock: systemClock,
      logger,
    });
    rateFeed.start();
    // The relay connects lazily and retries: orders proceed while the broker is away; events wait in the outbox.
    const outbox = startOutboxPublishing(dataSource, config.AMQP_URL, logger, {
      amqpContext: 'amqp',
      relay: { pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS },
    });
    const ledgerClient = peer(ledger.LedgerService, 'ledger', config.LEDGER_GRPC_ADDR);
    const walletRegistryClient = peer(
      walletRegistry.WalletRegistryService,
      'wallet-registry',
      config.WALLET_REGISTRY_GRPC_ADDR,
    );
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
      onEventsCommitted: () => outbox.relay.kick(),
      holdReconciler: { intervalMs: config.HOLD_RECONCILE_INTERVAL_MS, minAgeMs: config.HOLD_RECONCILE_MIN_AGE_MS },
    });
    scheduler.start();
    holdReconciler.start();
    return {
      server,
      drain: () => Promise.all([scheduler.stop(), holdReconciler.stop()]),
      stop: async () => {
        rateFeed.stop();
        ledgerClient.close();
        walletRegistryClient.close();
        await outbox.stop();
      },
    };
  },
});
