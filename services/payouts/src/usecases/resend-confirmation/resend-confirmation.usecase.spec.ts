// Proves the resend's sequence and its failure paths against an in-memory
// confirmation whose transactions run one at a time (as its row lock makes
// them): the code is sent only after the transaction that records it has
// committed, under a new issue; of two resends at once one sends and the other
// meets the cooldown (429 with retryAfterSeconds); a failed send answers the
// notifier's error and gives the resend back (previous code, expiry and
// cooldown, not counted), so a resend at once goes out under the next issue,
// never a reused one; the give-back undoes neither a later resend nor a
// confirmation made meanwhile, and a give-back that fails still answers the
// notifier's error. Also: a locked partner's resend is refused before anyone is
// looked up or mailed, an unknown confirmation is not found first.
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import type { ConfirmationCodeMessage } from '../../adapters/peers/confirmation-code-sender';
import { Confirmation, hashCode } from '../../domain/confirmation-code';
import type { IssuedCode } from '../../persistence/confirmations.repository';
import { ResendConfirmationUseCase } from './resend-confirmation.usecase';

const logger = createLogger('resend-spec', 'error');
const KEY = 'cd'.repeat(32);
const partnerId = '11111111-1111-4111-8111-111111111111';
const confirmationId = '22222222-2222-4222-8222-222222222222';
const CODE_LIFETIME_MS = 60_000;

interface HarnessOptions {
  partnerLocked?: boolean;
  timeScale?: number;
  /** Each send in turn: resolves (sent), or rejects with the error given. */
  send?: (message: ConfirmationCodeMessage) => Promise<void>;
  giveBackFails?: boolean;
}

function harness(options: HarnessOptions = {}) {
  const events: string[] = [];
  const sent: ConfirmationCodeMessage[] = [];
  const subjectExpiries: Date[] = [];
  const startedAt = Date.now();
  let row: Confirmation = {
    confirmationId,
    partnerId,
    subjectType: 'transfer',
    subjectId: '33333333-3333-4333-8333-333333333333',
    codeHash: hashCode(KEY, confirmationId, 0, '111111'),
    deliveredTo: 't***@example.com',
    status: 'live',
    attempts: 0,
    resends: 0,
    codeIssue: 0,
    lastIssue: 0,
    expiresAt: new Date(startedAt + CODE_LIFETIME_MS),
    resendAvailableAt: new Date(startedAt - 1_000),
    createdAt: new Date(startedAt - 5_000),
    verifiedAt: null,
  };
  let open = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const manager = { name: 'transaction' };
  // One transaction at a time, as the confirmation's FOR UPDATE lock orders resends of one confirmation.
  const transaction = (work: (m: unknown) => Promise<unknown>) => {
    const run = queue.then(async () => {
      open += 1;
      events.push('begin');
      try {
        const answer = await work(manager);
        events.push('commit');
        return answer;
      } catch (error) {
        events.push('rollback');
        throw error;
      } finally {
        open -= 1;
      }
    });
    queue = run.catch(() => undefined);
    return run;
  };
  const dataSource = { manager: {}, transaction } as unknown as DataSource;
  const confirmations = {
    find: async (_m: unknown, id: string) => (id === confirmationId ? { ...row } : null),
    lock: async (_m: unknown, partner: string, id: string) =>
      id === confirmationId && partner === partnerId ? { ...row } : null,
    reissue: async (_m: unknown, _id: string, code: IssuedCode) => {
      if (row.status !== 'live' || row.lastIssue >= code.issue) return null;
      row = {
        ...row,
        codeHash: code.codeHash,
        codeIssue: code.issue,
        lastIssue: code.issue,
        resends: row.resends + 1,
        expiresAt: code.expiresAt,
        resendAvailableAt: code.resendAvailableAt,
      };
      events.push(`reissued ${code.issue}`);
      return { ...row };
    },
    giveBackResend: async (_m: unknown, _id: string, issue: number, previous: IssuedCode) => {
      if (options.giveBackFails) throw Object.assign(new Error('connection lost'), { code: '08006' });
      if (row.codeIssue !== issue || row.status !== 'live' || row.resends === 0) return false;
      row = {
        ...row,
        codeHash: previous.codeHash,
        codeIssue: previous.issue,
        resends: row.resends - 1,
        expiresAt: previous.expiresAt,
        resendAvailableAt: previous.resendAvailableAt,
      };
      events.push(`given back ${issue}`);
      return true;
    },
  };
  const reschedule = { rescheduleExpiry: async (_m: unknown, _id: string, at: Date) => void subjectExpiries.push(at) };
  const useCase = new ResendConfirmationUseCase({
    dataSource,
    confirmations: confirmations as never,
    transfers: reschedule as never,
    sends: reschedule as never,
    budgets: { isLocked: async () => options.partnerLocked ?? false },
    walletRegistry: {
      getCodeRecipient: async () => {
        events.push('recipient');
        return { email: 'treasurer@example.com' } as never;
      },
    },
    codes: {
      send: async (message: ConfirmationCodeMessage) => {
        events.push(open === 0 ? `send ${message.issue}` : `send ${message.issue} inside a transaction`);
        await (options.send ?? (async () => undefined))(message);
        sent.push(message);
      },
    } as never,
    describe: async () => ({ kind: 'transfer_confirmation', variables: { amount: '10.00' } }),
    settings: { codeHashKeyHex: KEY, codeLifetimeMs: CODE_LIFETIME_MS, timeScale: options.timeScale ?? 1 },
    logger,
  });
  return {
    useCase,
    events,
    sent,
    subjectExpiries,
    row: () => row,
    set: (changes: Partial<Confirmation>) => (row = { ...row, ...changes }),
    resend: () => useCase.execute({ partnerId, confirmationId }),
  };
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: AppError) => ({ code: error.code, retryAfterSeconds: error.retryAfterSeconds }),
  );

const unavailable = async () => {
  throw new AppError('SERVICE_UNAVAILABLE');
};

describe('ResendConfirmationUseCase', () => {
  it('refuses a locked partner before looking anyone up or mailing a code', async () => {
    const h = harness({ partnerLocked: true });
    expect((await refusalOf(h.resend()))?.code).toBe('PARTNER_CONFIRMATIONS_LOCKED');
    expect(h.events).toEqual([]);
  });

  it('still answers an unknown confirmation as not found', async () => {
    const h = harness({ partnerLocked: true });
    const refusal = await refusalOf(
      h.useCase.execute({ partnerId, confirmationId: '44444444-4444-4444-8444-444444444444' }),
    );
    expect(refusal?.code).toBe('CONFIRMATION_NOT_FOUND');
  });

  it('records the code under the next issue and the next cooldown, commits, and only then sends it', async () => {
    const h = harness();
    const before = Date.now();
    const resent = await h.resend();
    expect(h.events).toEqual(['recipient', 'begin', 'reissued 1', 'commit', 'send 1']);
    expect(resent).toMatchObject({ confirmationId, resends: 1, codeIssue: 1, lastIssue: 1 });
    // The second rung of the ladder: 60 s after this resend.
    expect(resent.resendAvailableAt.getTime() - before).toBeGreaterThanOrEqual(60_000);
    expect(resent.resendAvailableAt.getTime() - Date.now()).toBeLessThanOrEqual(60_000);
    const [message] = h.sent;
    expect(message).toMatchObject({ confirmationId, issue: 1, recipient: 'treasurer@example.com' });
    expect(message.variables).toEqual({ amount: '10.00', expiresAt: resent.expiresAt.toISOString() });
    expect(hashCode(KEY, confirmationId, 1, message.code)).toBe(h.row().codeHash);
    expect(h.subjectExpiries).toEqual([resent.expiresAt, resent.expiresAt]);
  });

  it('of two resends at once sends one; the other meets the cooldown and sends nothing', async () => {
    const h = harness();
    const outcomes = await Promise.all([refusalOf(h.resend()), refusalOf(h.resend())]);
    expect(outcomes).toContainEqual(null);
    expect(outcomes).toContainEqual({ code: 'CONFIRMATION_RESEND_COOLDOWN', retryAfterSeconds: 60 });
    expect(h.sent.map((message) => message.issue)).toEqual([1]);
    expect(h.row()).toMatchObject({ resends: 1, lastIssue: 1 });
  });

  it('gives a failed send back: the notifier error answers, the previous code stands, a resend at once goes out under a new issue', async () => {
    let failNext = true;
    const h = harness({
      send: async () => {
        if (failNext) {
          failNext = false;
          await unavailable();
        }
      },
    });
    const previous = { ...h.row() };
    expect((await refusalOf(h.resend()))?.code).toBe('SERVICE_UNAVAILABLE');
    expect(h.events).toEqual([
      'recipient',
      'begin',
      'reissued 1',
      'commit',
      'send 1',
      'begin',
      'given back 1',
      'commit',
    ]);
    expect(h.row()).toEqual({ ...previous, lastIssue: 1 });
    expect(h.subjectExpiries.slice(2)).toEqual([previous.expiresAt, previous.expiresAt]);

    const resent = await h.resend();
    expect(resent).toMatchObject({ resends: 1, codeIssue: 2, lastIssue: 2 });
    expect(h.sent.map((message) => message.issue)).toEqual([2]);
  });

  it('does not count a failed send towards the limit of four resends', async () => {
    let sends = 0;
    const h = harness({
      timeScale: 0.000_001,
      send: async () => {
        sends += 1;
        if (sends % 2 === 1) await unavailable();
      },
    });
    for (let resend = 0; resend < 4; resend += 1) {
      expect((await refusalOf(h.resend()))?.code).toBe('SERVICE_UNAVAILABLE');
      await new Promise((resolve) => setTimeout(resolve, 2));
      expect(await refusalOf(h.resend())).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(h.row()).toMatchObject({ resends: 4, codeIssue: 8, lastIssue: 8 });
    expect((await refusalOf(h.resend()))?.code).toBe('CONFIRMATION_RESEND_LIMIT');
  });

  it('leaves a later resend in place when the earlier send fails after it', async () => {
    let failFirst: () => void = () => undefined;
    const h = harness({
      timeScale: 0.000_001,
      send: (message) =>
        message.issue === 1
          ? new Promise((_resolve, reject) => (failFirst = () => reject(new AppError('SERVICE_UNAVAILABLE'))))
          : Promise.resolve(),
    });
    const first = refusalOf(h.resend());
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await refusalOf(h.resend())).toBeNull();
    failFirst();
    expect((await first)?.code).toBe('SERVICE_UNAVAILABLE');
    expect(h.row()).toMatchObject({ resends: 2, codeIssue: 2, lastIssue: 2 });
    expect(h.events).not.toContain('given back 1');
  });

  it('leaves a confirmation made meanwhile as it is', async () => {
    const h = harness({
      send: async () => {
        h.set({ status: 'used', verifiedAt: new Date() });
        await unavailable();
      },
    });
    expect((await refusalOf(h.resend()))?.code).toBe('SERVICE_UNAVAILABLE');
    expect(h.row()).toMatchObject({ status: 'used', resends: 1, codeIssue: 1 });
  });

  it('still answers the notifier error when the give-back fails, and the cooldown then stands', async () => {
    const h = harness({ send: unavailable, giveBackFails: true });
    expect((await refusalOf(h.resend()))?.code).toBe('SERVICE_UNAVAILABLE');
    expect(h.events.slice(-2)).toEqual(['begin', 'rollback']);
    const refusal = await refusalOf(h.resend());
    expect(refusal?.code).toBe('CONFIRMATION_RESEND_COOLDOWN');
  });

  it('sends nothing and changes nothing when refused under the lock', async () => {
    const h = harness();
    h.set({ resendAvailableAt: new Date(Date.now() + 10_500) });
    const before = { ...h.row() };
    expect(await refusalOf(h.resend())).toEqual({
      code: 'CONFIRMATION_RESEND_COOLDOWN',
      retryAfterSeconds: 11,
    });
    h.set({ resendAvailableAt: new Date(Date.now() - 1), resends: 4 });
    expect((await refusalOf(h.resend()))?.code).toBe('CONFIRMATION_RESEND_LIMIT');
    expect(h.sent).toEqual([]);
    expect(h.row().lastIssue).toBe(before.lastIssue);
  });
});
