import { randomUUID } from 'node:crypto';
import { AppError, isAppError, validationFailed } from '@platform/errors';
import { Big, parsePositiveAmount } from '@platform/money';
import { DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { isValidPostAmount } from '../../domain/hold';
import { isUuid } from '../../domain/ids';
import { requestHash } from '../../domain/request-hash';
import type { HoldRecord, HoldsRepository } from '../../persistence/holds.repository';
import { lockCallerAccounts } from '../../persistence/journal.repository';
import type { MoneyMovementLog } from '../money-movements';
import {
  balances,
  ENTRY_KIND,
  postEntryOrRefuse,
  postingsShapeValid,
  RawPosting,
  toPostings,
  validMetadata,
} from '../post-entry/postings';
import type { PostingSpreader } from '../post-entry/spread-postings';
import { releaseHold } from '../void-hold/void-hold.usecase';

export interface PostHoldCommand {
  holdId: string;
  postAmount: string;
  counterPostings: RawPosting[];
  kind: string;
  metadata: Record<string, string>;
}

/** Holds one PostHolds call posts, at most (one transaction holds their accounts' locks). */
export const POST_HOLDS_PER_CALL_MAX = 50;

interface Resolution {
  hold: HoldRecord;
  expired: boolean;
  resolvedNow: boolean;
}

interface CheckedCommand {
  command: PostHoldCommand;
  hash: string;
}

/**
 * Posts a pending hold in ONE entry: the held account is debited postAmount
 * and the caller's counter-postings credit the rest; held falls by the whole
 * hold, so any remainder returns to available. Exactly once: the same request
 * again returns the posted hold, anything else LEDGER_HOLD_ALREADY_RESOLVED.
 * A hold found past its expiry is expired (committed) and the post refused.
 */
export class PostHoldUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly holds: HoldsRepository,
    private readonly movements: MoneyMovementLog,
    private readonly spreader: PostingSpreader,
  ) {}

  async execute(command: PostHoldCommand): Promise<HoldRecord> {
    const checked = this.checked(command);
    const outcome = await withTransaction(this.dataSource, (manager) => this.resolveWithin(manager, checked));
    if (outcome.resolvedNow) this.movements.holdResolved(outcome.hold);
    // The expiry commits; only then is the late post refused.
    if (outcome.expired) throw new AppError('LEDGER_HOLD_ALREADY_RESOLVED');
    return outcome.hold;
  }

  /**
   * Several posts in ONE transaction, each exactly as execute would post it
   * alone. Every hold is locked first, in id order, then every account any of
   * them moves, in id order, so the batch takes its locks in the order a
   * single post does and never waits on itself. A refusal raised before
   * anything of its post is written answers that request alone; any other
   * failure (a posting the balances refuse, a database error) rolls the whole
   * batch back and fails the call.
   */
  async executeMany(commands: readonly PostHoldCommand[]): Promise<Array<HoldRecord | AppError>> {
    if (commands.length < 1 || commands.length > POST_HOLDS_PER_CALL_MAX) throw validationFailed(['holds']);
    const items = commands.map((command) => {
      try {
        return this.checked(command);
      } catch (error) {
        if (isAppError(error)) return error;
        throw error;
      }
    });
    const outcomes = await withTransaction(this.dataSource, async (manager) => {
      await this.lockInOrder(
        manager,
        items.filter((item): item is CheckedCommand => !isAppError(item)),
      );
      const resolved: Array<Resolution | AppError> = [];
      for (const item of items) resolved.push(isAppError(item) ? item : await this.refusedOrResolved(manager, item));
      return resolved;
    });
    return outcomes.map((outcome) => {
      if (isAppError(outcome)) return outcome;
      if (outcome.resolvedNow) this.movements.holdResolved(outcome.hold);
      return outcome.expired ? new AppError('LEDGER_HOLD_ALREADY_RESOLVED') : outcome.hold;
    });
  }

  private checked(command: PostHoldCommand): CheckedCommand {
    this.validate(command);
    const hash = requestHash({
      action: 'post',
      postAmount: new Big(command.postAmount).toString(),
      counterPostings: command.counterPostings,
      kind: command.kind,
      metadata: command.metadata,
    });
    return { command, hash };
  }

  private async resolveWithin(manager: EntityManager, { command, hash }: CheckedCommand): Promise<Resolution> {
    const hold = await this.holds.findForUpdate(manager, command.holdId);
    if (!hold) throw new AppError('LEDGER_HOLD_NOT_FOUND');
    if (hold.status !== 'pending') {
      if (hold.resolutionHash !== hash) throw new AppError('LEDGER_HOLD_ALREADY_RESOLVED');
      return { hold, expired: false, resolvedNow: false };
    }
    if (hold.expiredNow)
      return {
        hold: await releaseHold(manager, this.holds, hold, 'expired', null),
        expired: true,
        resolvedNow: true,
      };
    return { hold: await this.post(manager, hold, command, hash), expired: false, resolvedNow: true };
  }

  /** One post of a batch: its refusal before any write is its answer; insufficient funds fail the batch (a write failed). */
  private async refusedOrResolved(manager: EntityManager, item: CheckedCommand): Promise<Resolution | AppError> {
    try {
      return await this.resolveWithin(manager, item);
    } catch (error) {
      if (isAppError(error) && error.code !== 'LEDGER_INSUFFICIENT_FUNDS') return error;
      throw error;
    }
  }

  /** The batch's holds in id order, then every account their posts move, in id order (lockCallerAccounts sorts). */
  private async lockInOrder(manager: EntityManager, items: readonly CheckedCommand[]): Promise<void> {
    const locked = await this.holds.findManyForUpdate(manager, [...new Set(items.map((item) => item.command.holdId))]);
    const holds = new Map(locked.map((hold) => [hold.holdId, hold]));
    const accountIds: string[] = [];
    for (const { command } of items) {
      const hold = holds.get(command.holdId);
      if (!hold || hold.status !== 'pending') continue;
      const counterPostings = await this.spreader.spread(command.counterPostings, hold.accountId);
      accountIds.push(hold.accountId, ...counterPostings.map((posting) => posting.accountId));
    }
    if (accountIds.length > 0) await lockCallerAccounts(manager, accountIds);
  }

  private validate(command: PostHoldCommand): void {
    const bad: string[] = [];
    if (!isUuid(command.holdId)) bad.push('holdId');
    if (!/^\d{1,15}(\.\d{1,6})?$/.test(command.postAmount)) bad.push('postAmount');
    if (!postingsShapeValid(command.counterPostings, 1)) bad.push('counterPostings');
    if (!ENTRY_KIND.test(command.kind)) bad.push('kind');
    if (!validMetadata(command.metadata)) bad.push('metadata');
    if (bad.length > 0) throw validationFailed(bad);
  }

  private async post(
    manager: EntityManager,
    hold: HoldRecord,
    command: PostHoldCommand,
    hash: string,
  ): Promise<HoldRecord> {
    const postAmount = parsePositiveAmount(command.postAmount, hold.currency);
    if (!postAmount || !isValidPostAmount(postAmount, new Big(hold.amount))) throw validationFailed(['postAmount']);
    if (command.counterPostings.some((posting) => posting.accountId === hold.accountId))
      throw validationFailed(['counterPostings']);
    // Treasury and fee revenue legs go to the shard of the held (partner) account.
    const counterPostings = await this.spreader.spread(command.counterPostings, hold.accountId);
    const accounts = await lockCallerAccounts(manager, [
      hold.accountId,
      ...counterPostings.map((posting) => posting.accountId),
    ]);
    const postings = [
      { accountId: hold.accountId, currency: hold.currency, amount: postAmount.times(-1) },
      ...toPostings(counterPostings, accounts, 'counterPostings'),
    ];
    if (!balances(postings)) throw validationFailed(['counterPostings']);
    const entryId = randomUUID();
    // The hold's whole amount leaves held in the entry's own statement, so any remainder returns to available.
    await postEntryOrRefuse(
      manager,
      {
        entryId,
        kind: command.kind,
        partnerId: accounts.get(hold.accountId)!.partnerId,
        postings,
        metadata: { ...command.metadata, holdId: hold.holdId },
      },
      hash,
      accounts,
      { accountId: hold.accountId, amount: new Big(hold.amount) },
    );
    return this.holds.resolve(manager, hold.holdId, {
      status: 'posted',
      postedAmount: postAmount,
      entryId,
      resolutionHash: hash,
    });
  }
}
