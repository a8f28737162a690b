/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { bootService } from '@platform/grpc';
import { notifier } from '@platform/proto';
import { GrpcAdminNoticeSender } from './adapters/notifier/admin-notice-sender';
import { GrpcApprovalCodeSender } from './adapters/notifier/approval-code-sender';
import { effectiveAdminWaitingPeriodMs, effectiveCodeTtlMs, readConfig } from './config';
import { SERVICE_NAME, walletRegistryDataSource } from './persistence/data-source';
import { createServer } from './server';

const NOTICE_POLL_INTERVAL_MS = 500;
const NOTICE_BATCH_SIZE = 10;
const NOTICE_LEASE_MARGIN_MS = 10_000;

/**
 * The notices' timer: a pass sends its batch one by one, each bounded by the
 * notifier deadline, so the lease outlasts a whole pass and another replica
 * never retakes a notice still being sent (a retake would only be replayed).
 */
function noticeSchedulerOptions(notifierDeadlineMs: number) {
  return {
    intervalMs: NOTICE_POLL_INTERVAL_MS,
    batchSize: NOTICE_BATCH_SIZE,
    leaseMs: NOTICE_BATCH_SIZE * notifierDeadlineMs + NOTICE_LEASE_MARGIN_MS,
  };
}

bootService({
  service: SERVICE_NAME,
  readConfig,
  dataSource: walletRegistryDataSource,
  start: async ({ config, logger, tls, dataSource, peer }) => {
    const notifierClient = peer(notifier.NotifierService, 'notifier', config.NOTIFIER_GRPC_ADDR, {
      deadlineMs: config.NOTIFIER_DEADLINE_MS,
    });
    const { server, noticeScheduler } = createServer({
      dataSource,
      logger,
      tls,
      mode: config.PLATFORM_MODE,
      codeHashKeyHex: config.CODE_HASH_KEY,
      codeTtlMs: effectiveCodeTtlMs(config),
      adminWaitingPeriodMs: effectiveAdminWaitingPeriodMs(config),
      approvalCodeSender: new GrpcApprovalCodeSender(notifierClient, logger),
      adminNoticeSender: new GrpcAdminNoticeSender(notifierClient),
      noticeScheduler: noticeSchedulerOptions(config.NOTIFIER_DEADLINE_MS),
    });
    noticeScheduler.start();
    return {
      server,
      drain: () => noticeScheduler.stop(),
      stop: async () => {
        notifierClient.close();
      },
    };
  },
});
