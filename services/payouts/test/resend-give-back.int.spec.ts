// Proves the resend's two short transactions against the test stack's
// PostgreSQL: a scratch database with payouts' migrations, the resend use case
// with its real repositories and a notifier stand-in that sends, fails or
// waits (the running services never see these rows).
// - Five resends of one confirmation at once: the row lock lets one record and
//   send its code; the four others answer 429 with retryAfterSeconds.
// - A failed send answers the notifier's 503 and gives the resend back: the
//   previous code matches again, its expiry and cooldown stand, the resend does
//   not count; the issue it took stays taken, so a resend at once goes out
//   under the next one.
// - The give-back is fenced: it changes nothing once a later resend recorded
//   another code or the confirmation was used.
// - Migration: a confirmation resent before it keeps its code (its issue was
//   its count of resends); a resend by a replica of the release before
//   (code_hash and resends only) keeps the issue with its code, so this
//   release matches that code and numbers the next issue after it.
import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import { createDataSource, DataSource, withTransaction } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import type { ConfirmationCodeMessage } from '../src/adapters/peers/confirmation-code-sender';
import { codeMatches, hashCode } from '../src/domain/confirmation-code';
import { ConfirmationsRepository } from '../src/persistence/confirmations.repository';
import { payoutsDataSource } from '../src/persistence/data-source';
import { ConfirmationCodeIssueMigration1798900000000 } from '../src/persistence/migrations/1798900000000-confirmation-code-issue';
import { TransfersRepository } from '../src/persistence/transfers.repository';
import { UsdtSendsRepository } from '../src/persistence/usdt-sends.repository';
import { ResendConfirmationUseCase } from '../src/usecases/resend-confirmation/resend-confirmation.usecase';

type MigrationClass = new () => unknown;

const KEY = 'ef'.repeat(32);
const FIRST_CODE = '246810';
const CODE_LIFETIME_MS = 600_000;
const CONCURRENT_RESENDS = 5;
/** Room for every concurrent resend's reads and its transaction. */
const POOL_SIZE = 2 * CONCURRENT_RESENDS;
const logger = createLogger('resend-give-back-spec', 'error');
const confirmations = new ConfirmationsRepository();

let scratch: ScratchDatabase;
let db: DataSource;

/** Payouts' migrations, less those named, run on the database at `url`. */
async function migrated(url: string, without: MigrationClass[] = []): Promise<DataSource> {
  const migrations = (payoutsDataSource(url).options.migrations as MigrationClass[]).filter(
    (migration) => !without.includes(migration),
  );
  const source = await createDataSource({
    url,
    applicationName: 'resend-give-back-spec',
    migrations,
    poolSize: POOL_SIZE,
  }).initialize();
  await source.runMigrations({ transaction: 'each' });
  return source;
}

/** A live confirmation whose first code is FIRST_CODE and whose cooldown has passed. */
async function liveConfirmation(source: DataSource = db): Promise<{ partnerId: string; confirmationId: string }> {
  const partnerId = randomUUID();
  const confirmationId = randomUUID();
  await source.query(
    `INSERT INTO confirmations (confirmation_id, partner_id, subject_type, subject_id, code_hash, delivered_to, status,
       expires_at, resend_available_at)
     VALUES ($1, $2, 'transfer', $3, $4, 't***@example.com', 'live', now() + interval '10 minutes', now() - interval '1 second')`,
    [confirmationId, partnerId, randomUUID(), hashCode(KEY, confirmationId, 0, FIRST_CODE)],
  );
  return { partnerId, confirmationId };
}

function resendUseCase(send: (message: ConfirmationCodeMessage) => Promise<void>, timeScale = 1) {
  return new ResendConfirmationUseCase({
    dataSource: db,
    confirmations,
    transfers: new TransfersRepository(),
    sends: new UsdtSendsRepository(),
    budgets: { isLocked: async () => false },
    walletRegistry: { getCodeRecipient: async () => ({ email: 'treasurer@example.com' }) as never },
    codes: { send } as never,
    describe: async () => ({ kind: 'transfer_confirmation', variables: {} }),
    settings: { codeHashKeyHex: KEY, codeLifetimeMs: CODE_LIFETIME_MS, timeScale },
    logger,
  });
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: AppError) => ({ code: error.code, retryAfterSeconds: error.retryAfterSeconds }),
  );

async function row(confirmationId: string) {
  const found = await confirmations.find(db.manager, confirmationId);
  if (!found) throw new Error(`confirmation ${confirmationId} is gone`);
  return found;
}

beforeAll(async () => {
  scratch = await createScratchDatabase('payouts_resend');
  db = await migrated(scratch.url);
});

afterAll(async () => {
  await db?.destroy();
  await scratch?.drop();
});

describe('resend: the code sent between two short transactions', () => {
  it('sends one code for five resends at once; the others meet the cooldown', async () => {
    const subject = await liveConfirmation();
    const sent: ConfirmationCodeMessage[] = [];
    const useCase = resendUseCase(async (message) => void sent.push(message));
    const outcomes = await Promise.all(
      Array.from({ length: CONCURRENT_RESENDS }, () => refusalOf(useCase.execute(subject))),
    );
    expect(outcomes.filter((outcome) => outcome === null)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome?.code === 'CONFIRMATION_RESEND_COOLDOWN')).toHaveLength(
      CONCURRENT_RESENDS - 1,
    );
    expect(sent.map((message) => message.issue)).toEqual([1]);
    const after = await row(subject.confirmationId);
    expect(after).toMatchObject({ resends: 1, codeIssue: 1, lastIssue: 1 });
    expect(codeMatches(KEY, after, sent[0].code)).toBe(true);
    expect(codeMatches(KEY, after, FIRST_CODE)).toBe(false);
  });

  it('gives a failed send back: the previous code works again and a resend at once takes the next issue', async () => {
    const subject = await liveConfirmation();
    const before = await row(subject.confirmationId);
    const sent: ConfirmationCodeMessage[] = [];
    let failNext = true;
    const useCase = resendUseCase(async (message) => {
      if (failNext) {
        failNext = false;
        throw new AppError('SERVICE_UNAVAILABLE');
      }
      sent.push(message);
    });
    expect((await refusalOf(useCase.execute(subject)))?.code).toBe('SERVICE_UNAVAILABLE');
    const givenBack = await row(subject.confirmationId);
    expect(givenBack).toEqual({ ...before, lastIssue: 1 });
    expect(codeMatches(KEY, givenBack, FIRST_CODE)).toBe(true);

    expect(await refusalOf(useCase.execute(subject))).toBeNull();
    expect(sent.map((message) => message.issue)).toEqual([2]);
    const resent = await row(subject.confirmationId);
    expect(resent).toMatchObject({ resends: 1, codeIssue: 2, lastIssue: 2 });
    expect(codeMatches(KEY, resent, sent[0].code)).toBe(true);
  });

  it('gives nothing back once a later resend recorded another code, or the confirmation was used', async () => {
    const subject = await liveConfirmation();
    const before = await row(subject.confirmationId);
    const previous = {
      issue: before.codeIssue,
      codeHash: before.codeHash,
      expiresAt: before.expiresAt,
      resendAvailableAt: before.resendAvailableAt,
    };
    const useCase = resendUseCase(async () => undefined, 0.000_001);
    await useCase.execute(subject);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await useCase.execute(subject);
    const later = await row(subject.confirmationId);
    const stale = await withTransaction(db, (manager) =>
      confirmations.giveBackResend(manager, subject.confirmationId, 1, previous),
    );
    expect(stale).toBe(false);
    expect(await row(subject.confirmationId)).toEqual(later);

    await confirmations.markUsed(db.manager, subject.confirmationId, new Date());
    const used = await withTransaction(db, (manager) =>
      confirmations.giveBackResend(manager, subject.confirmationId, 2, previous),
    );
    expect(used).toBe(false);
    expect(await row(subject.confirmationId)).toMatchObject({ status: 'used', resends: 2, codeIssue: 2 });
  });

  it('keeps the code of a confirmation resent before the migration', async () => {
    const older = await createScratchDatabase('payouts_resend_migration');
    try {
      const before = await migrated(older.url, [ConfirmationCodeIssueMigration1798900000000]);
      let subject: { partnerId: string; confirmationId: string };
      try {
        subject = await liveConfirmation(before);
        await before.query('UPDATE confirmations SET resends = 2, code_hash = $2 WHERE confirmation_id = $1', [
          subject.confirmationId,
          hashCode(KEY, subject.confirmationId, 2, FIRST_CODE),
        ]);
      } finally {
        await before.destroy();
      }
      const after = await migrated(older.url);
      try {
        const migratedRow = await confirmations.find(after.manager, subject.confirmationId);
        expect(migratedRow).toMatchObject({ resends: 2, codeIssue: 2, lastIssue: 2 });
        expect(codeMatches(KEY, migratedRow!, FIRST_CODE)).toBe(true);
      } finally {
        await after.destroy();
      }
    } finally {
      await older.drop();
    }
  });

  it('matches a code a replica of the release before resent, and numbers the next issue after it', async () => {
    const subject = await liveConfirmation();
    const sent: ConfirmationCodeMessage[] = [];
    await resendUseCase(async (message) => {
      sent.push(message);
    }).execute(subject);
    expect(await row(subject.confirmationId)).toMatchObject({ resends: 1, codeIssue: 1, lastIssue: 1 });

    const oldReleaseCode = '135790';
    await db.query(
      `UPDATE confirmations SET code_hash = $2, resends = resends + 1, resend_available_at = now() - interval '1 second'
        WHERE confirmation_id = $1`,
      [subject.confirmationId, hashCode(KEY, subject.confirmationId, 2, oldReleaseCode)],
    );
    const afterOldResend = await row(subject.confirmationId);
    expect(afterOldResend).toMatchObject({ resends: 2, codeIssue: 2, lastIssue: 2 });
    expect(codeMatches(KEY, afterOldResend!, oldReleaseCode)).toBe(true);

    await resendUseCase(async (message) => {
      sent.push(message);
    }).execute(subject);
    expect(sent.map((message) => message.issue)).toEqual([1, 3]);
    expect(await row(subject.confirmationId)).toMatchObject({ resends: 3, codeIssue: 3, lastIssue: 3 });
  });
});
