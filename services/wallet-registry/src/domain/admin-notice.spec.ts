// Proves what a notice of an administrator change says (kind, who, when, and
// for an addition when codes may start), that it carries nothing else (no
// code), and the retry schedule: doubling from 5 s, capped at 10 min.
import { AdminNotice, noticeIdempotencyKey, noticeMessage, noticeRetryDelayMs } from './admin-notice';

const notice: AdminNotice = {
  noticeId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
  partnerId: '7f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
  change: 'added',
  attempts: 1,
  changedAt: new Date('2026-11-21T10:00:00.000Z'),
  admin: {
    adminId: '8f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
    name: 'Jane Wanjiru',
    email: 'jane@example.com',
    receivesCodesFrom: new Date('2026-11-22T10:00:00.000Z'),
  },
  recipientEmail: 'kim@example.com',
};

describe('noticeMessage', () => {
  it('tells of an addition: who, when, and from when they may receive codes', () => {
    expect(noticeMessage(notice)).toEqual({
      kind: 'administrator_added',
      variables: {
        adminName: 'Jane Wanjiru',
        adminEmail: 'jane@example.com',
        changedAt: '2026-11-21T10:00:00.000Z',
        receivesCodesFrom: '2026-11-22T10:00:00.000Z',
      },
    });
  });

  it('tells of a removal: who and when', () => {
    expect(noticeMessage({ ...notice, change: 'removed' })).toEqual({
      kind: 'administrator_removed',
      variables: { adminName: 'Jane Wanjiru', adminEmail: 'jane@example.com', changedAt: '2026-11-21T10:00:00.000Z' },
    });
  });
});

describe('noticeIdempotencyKey', () => {
  it('is one key per notice', () => {
    expect(noticeIdempotencyKey(notice.noticeId)).toBe(`admin-notice:${notice.noticeId}`);
  });
});

describe('noticeRetryDelayMs', () => {
  it('doubles from 5 s and stops at 10 min', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(noticeRetryDelayMs)).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000,
    ]);
    expect(noticeRetryDelayMs(499)).toBe(600_000);
    expect(noticeRetryDelayMs(0)).toBe(5_000);
  });
});
