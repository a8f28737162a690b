/** Entry point: config → database and broker → outbox relay → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { startOutboxPublishing } from '@platform/events';
import { bootService } from '@platform/grpc';
import { SandboxChainCustodian } from './adapters/chain-custodian/sandbox-chain-custodian';
import { readConfig } from './config';
import { ledgerDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';
import { ledgerRetentionRules } from './workers/retention.worker';

bootService({
  service: SERVICE_NAME,
  readConfig,
  dataSource: ledgerDataSource,
  retention: (config) => ledgerRetentionRules({ outboxRetentionMs: config.OUTBOX_RETENTION_MS }),
  start: async ({ config, logger, tls, dataSource }) => {
    // The relay connects lazily and retries: the ledger serves even while the broker is away,
    // and events wait in the outbox until it returns.
    const outbox = startOutboxPublishing(dataSource, config.AMQP_URL, logger, {
      amqpContext: 'amqp',
      relay: { pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS },
    });
    const { server, sweepers } = createServer({
      dataSource,
      logger,
      tls,
      custodian: new SandboxChainCustodian(),
      sandbox: config.PLATFORM_MODE === 'sandbox',
      onEventsCommitted: () => outbox.relay.kick(),
      holdSweepIntervalMs: config.HOLD_SWEEP_INTERVAL_MS,
      holdSweepBatchSize: config.HOLD_SWEEP_BATCH_SIZE,
      funding: { paybillNumber: config.LEDGER_PAYBILL_NUMBER, beneficiaryName: config.LEDGER_BENEFICIARY_NAME },
      depositHoldLimits: { holdMaxMs: config.DEPOSIT_HOLD_MAX_MS },
    });
    sweepers.forEach((sweeper) => sweeper.start());
    return {
      server,
      drain: () => Promise.all(sweepers.map((sweeper) => sweeper.stop())),
      stop: async () => {
        await outbox.stop();
      },
    };
  },
});
