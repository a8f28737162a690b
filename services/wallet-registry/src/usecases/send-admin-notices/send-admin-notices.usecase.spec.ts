// Proves how a due notice is settled: sent → marked sent; refused or
// unreachable → tried again after the growing delay, keeping the refusal; at
// the last allowed try → given up with an alert. Fakes stand in for the
// notices table and the notifier.
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { AdminNoticeSender } from '../../adapters/notifier/admin-notice-sender';
import { AdminNotice, NOTICE_ATTEMPTS_MAX, noticeRetryDelayMs } from '../../domain/admin-notice';
import type { AdminNoticesRepository } from '../../persistence/admin-notices.repository';
import { SendAdminNoticesUseCase } from './send-admin-notices.usecase';

const notice: AdminNotice = {
  noticeId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
  partnerId: '7f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
  change: 'removed',
  attempts: 3,
  changedAt: new Date('2026-11-21T10:00:00.000Z'),
  admin: {
    adminId: '8f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
    name: 'Jane',
    email: 'jane@example.com',
    receivesCodesFrom: new Date('2026-11-21T10:00:00.000Z'),
  },
  recipientEmail: 'kim@example.com',
};

function setUp(send: AdminNoticeSender['send']) {
  const calls: unknown[][] = [];
  const notices = {
    markSent: async (...args: unknown[]) => void calls.push(['sent', ...args]),
    retryLater: async (...args: unknown[]) => void calls.push(['retry', ...args]),
    markFailed: async (...args: unknown[]) => void calls.push(['failed', ...args]),
  } as unknown as AdminNoticesRepository;
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
  const useCase = new SendAdminNoticesUseCase(notices, { send }, quiet);
  return { useCase, calls };
}

describe('SendAdminNoticesUseCase', () => {
  it('marks a notice the notifier took as sent', async () => {
    const sent: AdminNotice[] = [];
    const { useCase, calls } = setUp(async (taken) => void sent.push(taken));
    await useCase.run(notice);
    expect(sent).toEqual([notice]);
    expect(calls).toEqual([['sent', notice.noticeId]]);
  });

  it('tries an unreachable notifier again after the delay of this attempt', async () => {
    const { useCase, calls } = setUp(async () => {
      throw new AppError('SERVICE_UNAVAILABLE');
    });
    await useCase.run(notice);
    expect(calls).toEqual([['retry', notice.noticeId, noticeRetryDelayMs(3), 'SERVICE_UNAVAILABLE']]);
  });

  it('tries a refusal again too (a notifier not yet upgraded refuses the kind), keeping its code', async () => {
    const { useCase, calls } = setUp(async () => {
      throw new AppError('VALIDATION_FAILED', { fields: ['kind'] });
    });
    await useCase.run(notice);
    expect(calls).toEqual([['retry', notice.noticeId, noticeRetryDelayMs(3), 'VALIDATION_FAILED']]);
  });

  it('gives a notice up at the last allowed attempt', async () => {
    const { useCase, calls } = setUp(async () => {
      throw new Error('socket hang up');
    });
    await useCase.run({ ...notice, attempts: NOTICE_ATTEMPTS_MAX });
    expect(calls).toEqual([['failed', notice.noticeId, 'INTERNAL_ERROR']]);
  });
});
