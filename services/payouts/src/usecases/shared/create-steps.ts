/**
 * The steps every payout create shares (transfers, batch items, USDT sends):
 * the daily cap reserved at trading and the hold placed at the ledger, each
 * with its compensation, the claimed row given up on a refusal, and the
 * confirmation code sent, then recorded in the transaction that makes the
 * subject visible. Compensations are idempotent (adapters/peers/holds.ts): the
 * scheduler runs them again for a create that died midway.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { DataSource, DueRows, EntityManager, StepLease } from '@platform/persistence';
import { HeldLeases, isLeaseLost, withTransaction } from '@platform/persistence';
import type { SagaStep } from '@platform/saga';
import type { ConfirmationCodeMessage, ConfirmationCodeSender } from '../../adapters/peers/confirmation-code-sender';
import { mapHoldRefusal, releaseCapIdempotently, voidHoldIdempotently } from '../../adapters/peers/holds';
import type { CodeRecipient, LedgerApi, TradingLimitsApi } from '../../adapters/peers/peers';
import { generateCode, hashCode, resendCooldownMs, SubjectType } from '../../domain/confirmation-code';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';

type ReserveDailyCapRequest = Parameters<TradingLimitsApi['reserveDailyCap']>[0];
type PlaceHoldRequest = Parameters<LedgerApi['placeHold']>[0];

/** Only compensates: the row claimed for the key (before the saga) is deleted, so the key is free again. */
export function claimedRowStep(deleteCreating: () => Promise<unknown>): SagaStep {
  return {
    name: 'claim the idempotency key',
    compensate: async () => {
      await deleteCreating();
    },
  };
}

/** The shared daily cap; the usage id is the subject id, so releasing it is idempotent. */
export function reserveDailyCapStep(trading: TradingLimitsApi, usage: ReserveDailyCapRequest): SagaStep {
  return {
    name: 'reserve the daily cap',
    run: async () => {
      await trading.reserveDailyCap(usage);
    },
    compensate: () => releaseCapIdempotently(trading, usage.usageId),
  };
}

/**
 * The hold; its id is the subject id. `hold` is read when the step runs (the
 * account is known only then); a short balance is answered in the partner's words.
 */
export function placeHoldStep(
  ledger: Pick<LedgerApi, 'placeHold' | 'voidHold' | 'getHold'>,
  holdId: string,
  hold: () => Omit<PlaceHoldRequest, 'holdId'>,
  insufficientCode: 'INSUFFICIENT_KES_BALANCE' | 'INSUFFICIENT_USDT_BALANCE',
): SagaStep {
  return {
    name: 'place the hold',
    run: async () => {
      try {
        await ledger.placeHold({ holdId, ...hold() });
      } catch (error) {
        throw mapHoldRefusal(error, insufficientCode);
      }
    },
    compensate: () => voidHoldIdempotently(ledger, holdId),
  };
}

export interface ConfirmationCodeDependencies {
  dataSource: DataSource;
  confirmations: ConfirmationsRepository;
  codes: ConfirmationCodeSender;
  settings: { codeLifetimeMs: number; timeScale: number; codeHashKeyHex: string };
}

export interface ConfirmationCodeIssue {
  partnerId: string;
  subjectType: SubjectType;
  subjectId: string;
  kind: ConfirmationCodeMessage['kind'];
  recipient: CodeRecipient;
  variables: (expiresAt: Date) => Record<string, string>;
  /** Moves the subject (and its items) to awaiting confirmation; false when a row was no longer where it was expected. */
  markAwaiting: (manager: EntityManager, confirmationId: string, expiresAt: Date) => Promise<boolean>;
}

/**
 * Sends the code, then commits the confirmation that makes the subject
 * visible: no transaction (and no lock on the create's row) is held across the
 * notifier call. The notifier is idempotent on the confirmation id and issue,
 * so a retried send sends once. A notifier failure commits nothing (the saga
 * undoes the create); a commit that fails after the send (the create's lease
 * passed to another owner) leaves a code for a confirmation that was never
 * recorded, which no confirmation can match. Answers the confirmation id.
 */
export async function issueConfirmationCode(
  deps: ConfirmationCodeDependencies,
  issue: ConfirmationCodeIssue,
): Promise<string> {
  const confirmationId = randomUUID();
  const code = generateCode();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + deps.settings.codeLifetimeMs);
  await deps.codes.send({
    confirmationId,
    issue: 0,
    partnerId: issue.partnerId,
    recipient: issue.recipient.email,
    code,
    kind: issue.kind,
    subjectType: issue.subjectType,
    subjectId: issue.subjectId,
    variables: issue.variables(expiresAt),
  });
  await withTransaction(deps.dataSource, async (manager) => {
    await deps.confirmations.insert(manager, {
      confirmationId,
      partnerId: issue.partnerId,
      subjectType: issue.subjectType,
      subjectId: issue.subjectId,
      codeHash: hashCode(deps.settings.codeHashKeyHex, confirmationId, 0, code),
      deliveredTo: issue.recipient.maskedEmail,
      expiresAt,
      resendAvailableAt: new Date(now.getTime() + resendCooldownMs(0, deps.settings.timeScale)),
    });
    if (!(await issue.markAwaiting(manager, confirmationId, expiresAt))) throw new AppError('SERVICE_UNAVAILABLE');
  });
  return confirmationId;
}

/** A create's lease: how long its claim holds without renewal, and how often its live owner renews it. */
export interface CreateLeaseSettings {
  createLeaseMs: number;
  leaseRenewMs: number;
}

/** The row a create claimed: its table's due rows, its id, the claim's lease token. */
export interface CreateClaim {
  rows: DueRows;
  id: string;
  token: string | undefined;
  /** The create lease's multiple: a batch's row holds twice a transfer's, as its items are undone first. */
  leaseMultiple?: number;
}

/**
 * Runs `work` while holding a create's claimed row under its lease: renewed
 * every `leaseRenewMs` while the create runs (however long its checks take),
 * so a repeat or the scheduler takes the row over only once its owner stopped
 * renewing (it died: within `createLeaseMs`) or released it. The create's
 * final commit is fenced with the StepLease (fenceCreate).
 */
export async function underCreateLease<T>(
  deps: { dataSource: DataSource; logger: Logger; settings: CreateLeaseSettings },
  claim: CreateClaim,
  work: (lease: StepLease) => Promise<T>,
): Promise<T> {
  if (!claim.token) throw new Error(`claim of ${claim.rows.table} ${claim.id} answered no lease token`);
  const timing = {
    leaseMs: deps.settings.createLeaseMs * (claim.leaseMultiple ?? 1),
    renewEveryMs: deps.settings.leaseRenewMs,
  };
  const leases = new HeldLeases(deps.dataSource, claim.rows, timing, deps.logger);
  leases.hold(claim.id, claim.token);
  try {
    return await work(leases.stepLease(claim.id));
  } finally {
    leases.stop();
  }
}

/**
 * The fence of a create's final commit, inside its transaction: a create whose
 * claim another took over (its owner stalled past the lease) commits nothing
 * and answers 503, so the partner's repeat reads the new owner's answer.
 */
export async function fenceCreate(lease: StepLease, manager: EntityManager): Promise<void> {
  try {
    await lease.fence(manager);
  } catch (error) {
    if (isLeaseLost(error)) throw new AppError('SERVICE_UNAVAILABLE');
    throw error;
  }
}

/** Releases a failed create's claim only while this owner still holds it (releasingClaimOnFailure's release). */
export function releaseHeldClaim(
  lease: StepLease,
  release: (manager: EntityManager) => Promise<void>,
): () => Promise<void> {
  return () => lease.commit(release);
}

/**
 * Runs a create; when it fails with its row still claimed (a compensation
 * that met an unreachable peer), the claim is released at once, so a repeat
 * of the request takes the attempt over as soon as the peer is back, rather
 * than answering 503 until the create's lease passes.
 */
export async function releasingClaimOnFailure<T>(create: () => Promise<T>, release: () => Promise<void>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    // A release that fails leaves the lease to pass, as for a replica that died.
    await release().catch(() => undefined);
    throw error;
  }
}

/**
 * A transfer's or send's create: run under its claim's lease (underCreateLease),
 * the claim released at once behind the lease's fence when the create fails
 * (releasingClaimOnFailure, releaseHeldClaim).
 */
export function createUnderHeldClaim<T>(
  deps: { dataSource: DataSource; logger: Logger; settings: CreateLeaseSettings },
  claim: CreateClaim,
  releaseCreating: (manager: EntityManager) => Promise<void>,
  create: (lease: StepLease) => Promise<T>,
): Promise<T> {
  return underCreateLease(deps, claim, (lease) =>
    releasingClaimOnFailure(() => create(lease), releaseHeldClaim(lease, releaseCreating)),
  );
}

/** How a repeat takes over one abandoned create (claimIdempotently's `takeOver`). */
export interface AbandonedCreate {
  /** Leases the row to this caller when its owner gave it up; false while the owner holds it. */
  claim(): Promise<boolean>;
  /** Gives back what the attempt held (idempotent) and deletes its row, freeing the key. */
  undo(): Promise<void>;
  /** Gives the lease up again when undoing failed, for the next repeat or the scheduler. */
  release(): Promise<void>;
}

/** True once the abandoned attempt is undone and its key free; its failure to undo is the repeat's answer (503). */
export async function takeOverAbandoned(abandoned: AbandonedCreate): Promise<boolean> {
  if (!(await abandoned.claim())) return false;
  try {
    await abandoned.undo();
  } catch (error) {
    await abandoned.release().catch(() => undefined);
    throw error;
  }
  return true;
}

/** The value a transfer or USDT send create holds, given back: its hold voided and its daily-cap usage released. */
export async function giveBackCreate(
  ledger: Pick<LedgerApi, 'voidHold' | 'getHold'>,
  trading: TradingLimitsApi,
  subjectId: string,
): Promise<void> {
  await voidHoldIdempotently(ledger, subjectId);
  await releaseCapIdempotently(trading, subjectId);
}
