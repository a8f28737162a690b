/**
 * The `admin_notice` worker: sends the administrator-change notices
 * (SendAdminNoticesUseCase) on the shared DurableScheduler
 * (@platform/persistence) in every replica. It claims notices only while the
 * notifier looks reachable (its channel and breaker, no network round trip),
 * leaving them to a replica that can reach it; the use case itself retries any
 * refusal after a growing delay.
 */
import { allReachable } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { DataSource, DurableScheduler, SchedulerOptions } from '@platform/persistence';
import type { AdminNoticeSender } from '../adapters/notifier/admin-notice-sender';
import type { AdminNotice } from '../domain/admin-notice';
import type { SendAdminNoticesUseCase } from '../usecases/send-admin-notices/send-admin-notices.usecase';

export function adminNoticeWorker(
  dataSource: DataSource,
  sendNotices: SendAdminNoticesUseCase,
  sender: AdminNoticeSender,
  logger: Logger,
  options: SchedulerOptions,
): DurableScheduler<AdminNotice> {
  return new DurableScheduler(
    dataSource,
    {
      name: sendNotices.name,
      dueRows: sendNotices.dueRows,
      claimDue: (manager, limit, leaseMs) => sendNotices.claimDue(manager, limit, leaseMs),
      idOf: (notice) => sendNotices.idOf(notice),
      run: (notice) => sendNotices.run(notice),
      ready: allReachable(sender),
    },
    logger,
    options,
  );
}
