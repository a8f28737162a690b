/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { startOutboxPublishing } from '@platform/events';
import { bootService } from '@platform/grpc';
import { Big } from '@platform/money';
import { ledger, notifier, trading, walletRegistry } from '@platform/proto';
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
import { payoutsRetentionRules } from './workers/retention.worker';

/** How long shutdown lets the relay finish its in-flight batch before closing the broker connection under it. */
const RELAY_DRAIN_MS_MAX = 3_000;

bootService({
  service: SERVICE_NAME,
  readConfig,
  dataSource: payoutsDataSource,
  retention: (config) => payoutsRetentionRules({ outboxRetentionMs: config.OUTBOX_RETENTION_MS }),
  start: async ({ config, logger, tls, dataSource, peer }) => {
    // The broker is not awaited: events wait in the outbox while it is away, so
    // payouts can serve without it; the connection retries in the background.
    const outbox = startOutboxPublishing(dataSource, config.AMQP_URL, logger, {
      amqpContext: 'AmqpConnection',
      connectAtStart: true,
      relayDrainMsMax: RELAY_DRAIN_MS_MAX,
    });
    const ledgerClient = peer(ledger.LedgerService, 'ledger', config.LEDGER_GRPC_ADDR);
    // One channel and one breaker for trading: the daily cap and sell orders' proceeds (no method name in both).
    const tradingClient = peer(
      { ...trading.TradingLimitsService, ...trading.TradingSellProceedsService },
      'trading',
      config.TRADING_GRPC_ADDR,
    );
    const walletRegistryClient = peer(
      walletRegistry.WalletRegistryService,
      'wallet-registry',
      config.WALLET_REGISTRY_GRPC_ADDR,
    );
    const notifierClient = peer(notifier.NotifierService, 'notifier', config.NOTIFIER_GRPC_ADDR);
    const bank =
      config.PLATFORM_MODE === 'sandbox' ? new SandboxBank(sandboxSettleDelayMs(config)) : new UnconfiguredBank();
    const { server, runner, schedulers, holdReconciler, sellProceeds } = createServer({
      dataSource,
      logger,
      tls,
      ledger: ledgerClient,
      trading: tradingClient,
      sellProceeds: tradingClient,
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
      sellProceedsWorker: { intervalMs: config.SELL_PROCEEDS_POLL_MS, batchSize: config.SELL_PROCEEDS_BATCH_SIZE },
    });
    runner.start();
    for (const scheduler of schedulers) scheduler.start();
    holdReconciler.start();
    sellProceeds.start();
    return {
      server,
      drain: async () => {
        // Proceeds first: a sweep's instructions are then left to the runner's drain.
        await sellProceeds.stop();
        await runner.stop();
        await Promise.all([...schedulers.map((scheduler) => scheduler.stop()), holdReconciler.stop()]);
      },
      stop: async () => {
        ledgerClient.close();
        tradingClient.close();
        walletRegistryClient.close();
        notifierClient.close();
        await outbox.stop();
      },
    };
  },
});
