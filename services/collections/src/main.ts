/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { startOutboxPublishing } from '@platform/events';
import { bootService } from '@platform/grpc';
import { ledger } from '@platform/proto';
import { GrpcLedgerCredits } from './adapters/ledger.adapter';
import { SandboxUsdRails, UnavailableUsdRails } from './adapters/usd-rails.adapter';
import { effectiveLifetimeMs, readConfig } from './config';
import { collectionsDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';
import { collectionsRetentionRules } from './workers/retention.worker';
import { StepScheduler } from './workers/step-scheduler';

/** How long shutdown lets the relay finish its in-flight batch before closing the broker connection under it. */
const RELAY_DRAIN_MS_MAX = 3_000;

bootService({
  service: SERVICE_NAME,
  readConfig,
  dataSource: collectionsDataSource,
  retention: (config) => collectionsRetentionRules({ outboxRetentionMs: config.OUTBOX_RETENTION_MS }),
  start: async ({ config, logger, tls, dataSource, peer }) => {
    // The broker is not awaited: events wait in the outbox while it is away, so
    // collections can serve without it; the connection retries in the background.
    const outbox = startOutboxPublishing(dataSource, config.AMQP_URL, logger, {
      amqpContext: 'AmqpConnection',
      connectAtStart: true,
      relayDrainMsMax: RELAY_DRAIN_MS_MAX,
    });
    const ledgerClient = peer(ledger.LedgerService, 'ledger', config.LEDGER_GRPC_ADDR, {
      deadlineMs: config.LEDGER_DEADLINE_MS,
    });
    // No production USD rails are integrated yet: production refuses to open collections rather than hand out sandbox instructions.
    const { server, steps } = createServer({
      dataSource,
      logger,
      tls,
      mode: config.PLATFORM_MODE,
      ledger: new GrpcLedgerCredits(ledgerClient),
      rails: config.PLATFORM_MODE === 'sandbox' ? new SandboxUsdRails() : new UnavailableUsdRails(),
      defaultFeeTerms: {
        percentBps: config.COLLECTION_FEE_BPS_DEFAULT,
        flatMinor: BigInt(config.COLLECTION_FEE_FLAT_MINOR_DEFAULT),
        capMinor: BigInt(config.COLLECTION_FEE_CAP_MINOR_DEFAULT),
      },
      lifetimeMs: effectiveLifetimeMs(config),
      stepBatchSize: config.STEP_BATCH_SIZE,
    });
    const scheduler = new StepScheduler(steps, config.STEP_INTERVAL_MS, logger.child({ context: 'StepScheduler' }));
    scheduler.start();
    return {
      server,
      drain: () => scheduler.stop(),
      stop: async () => {
        await outbox.stop();
        ledgerClient.close();
      },
    };
  },
});
