import { randomUUID } from 'node:crypto';
import { AppError, isAppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, parsePositiveAmount } from '@platform/money';
import { DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { isValidPostAmount } from '../../domain/hold';
import { requestHash } from '../../domain/request-hash';
import type { HoldRecord, HoldsRepository, PostedHold } from '../../persistence/holds.repository';
import type { AccountState } from '../../domain/account';
import type { EntryDraft } from '../../domain/journal';
import { EntryBatch, InsufficientFundsError, lockCallerAccounts } from '../../persistence/journal.repository';
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

/** A post of the round, answered by its hold's record once written. */
interface Planned {
  written: string;
  resolvedNow: boolean;
}

/** A settlement round's posts not yet written (batch, posts) and the holds its posts resolved so far. */
interface Round {
  batch: EntryBatch;
  posts: PostedHold[];
  resolved: Map<string, HoldRecord>;
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
   * Several posts in ONE transaction, each answered exactly as execute would
   * answer it alone at its turn. Every hold is locked first, in id order, then
   * every account any of them moves, in id order, so the batch takes its locks
   * in the order a single post does and never waits on itself; the entries are
   * then written in one statement and the holds resolved in one more, however
   * many (postBatch; an overdue hold's expiry, rare, writes the posts before it
   * first). A refusal raised before anything of its post is written
   * answers that request alone; any other failure (a posting the balances
   * refuse, a database error) rolls the whole batch back and fails the call.
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
    const outcomes = await withTransaction(this.dataSource, (manager) => this.postBatch(manager, items));
    return outcomes.map((outcome) => {
      if (isAppError(outcome)) return outcome;
      if (outcome.resolvedNow) this.movements.holdResolved(outcome.hold);
      return outcome.expired ? new AppError('LEDGER_HOLD_ALREADY_RESOLVED') : outcome.hold;
    });
  }

  /**
   * The batch in one transaction: every hold locked, then every account, in id order; each
   * request answered in turn against the holds and balances as the requests before it left
   * them; the posts written together, their entries in ONE statement (EntryBatch) and their
   * holds resolved in one more. An overdue hold is expired at its own request's turn, after
   * the posts before it are written, so its release line, the held the postings before and
   * after it record and the funds later requests find are those of one-by-one posting. A
   * hold named twice is posted by its first request; the second is answered as a repeat of
   * it would be.
   */
  private async postBatch(
    manager: EntityManager,
    items: ReadonlyArray<CheckedCommand | AppError>,
  ): Promise<Array<Resolution | AppError>> {
    const checked = items.filter((item): item is CheckedCommand => !isAppError(item));
    const { holds, accounts, spreads } = await this.lockInOrder(manager, checked);
    const round: Round = { batch: new EntryBatch(accounts), posts: [], resolved: new Map() };
    const answers: Array<Resolution | AppError | Planned> = [];
    for (const item of items) {
      const hold = isAppError(item) ? undefined : holds.get(item.command.holdId);
      if (isAppError(item)) answers.push(item);
      else if (hold?.status === 'pending' && hold.expiredNow)
        answers.push(await this.expiredAtTurn(manager, hold, holds, round));
      else answers.push(this.planned(item, holds, round, spreads.get(item) ?? []));
    }
    await this.written(manager, round);
    return answers.map((answer) =>
      'written' in answer
        ? { hold: round.resolved.get(answer.written)!, expired: false, resolvedNow: answer.resolvedNow }
        : answer,
    );
  }

  /**
   * Writes the posts planned so far (entries in one statement, holds resolved in one more)
   * and starts the next part of the round from the balances they left.
   */
  private async written(manager: EntityManager, round: Round): Promise<void> {
    await round.batch.write(manager);
    for (const hold of await this.holds.resolvePostedMany(manager, round.posts)) round.resolved.set(hold.holdId, hold);
    round.batch = new EntryBatch(new Map(round.batch.state));
    round.posts = [];
  }

  /**
   * An overdue hold expired at its request's turn, as PostHold alone would then: the posts
   * before it written first (their lines come before its release line), and its release
   * counted in the held and available the requests after it see.
   */
  private async expiredAtTurn(
    manager: EntityManager,
    hold: HoldRecord,
    holds: Map<string, HoldRecord>,
    round: Round,
  ): Promise<Resolution> {
    await this.written(manager, round);
    const expired = await releaseHold(manager, this.holds, hold, 'expired', null);
    round.batch.released(hold.accountId, new Big(hold.amount));
    holds.set(hold.holdId, expired);
    return { hold: expired, expired: true, resolvedNow: true };
  }

  /**
   * One request of the batch answered as PostHold would answer it alone at its turn (its
   * hold not overdue): a post is added to the round (written later) and the hold counts as
   * posted for the requests after it. A refusal before any write is its answer;
   * insufficient funds fail the batch (as a write refused by the balances does).
   */
  private planned(
    { command, hash }: CheckedCommand,
    holds: Map<string, HoldRecord>,
    round: Round,
    spread: RawPosting[],
  ): Resolution | AppError | Planned {
    const hold = holds.get(command.holdId);
    if (!hold) return new AppError('LEDGER_HOLD_NOT_FOUND');
    if (hold.status !== 'pending') {
      if (hold.resolutionHash !== hash) return new AppError('LEDGER_HOLD_ALREADY_RESOLVED');
      const postedHere = round.resolved.has(hold.holdId) || round.posts.some((post) => post.holdId === hold.holdId);
      return postedHere ? { written: hold.holdId, resolvedNow: false } : { hold, expired: false, resolvedNow: false };
    }
    try {
      const postAmount = checkedPostAmount(hold, command);
      const draft = holdEntry(hold, command, postAmount, spread, round.batch.state);
      round.batch.add(draft, hash, { accountId: hold.accountId, amount: new Big(hold.amount) });
      round.posts.push({ holdId: hold.holdId, postedAmount: postAmount, entryId: draft.entryId, resolutionHash: hash });
    } catch (error) {
      if (error instanceof InsufficientFundsError) throw new AppError('LEDGER_INSUFFICIENT_FUNDS');
      if (isAppError(error)) return error;
      throw error;
    }
    // Posted by this batch: a later request of the id finds it so (its record is answered once written).
    holds.set(hold.holdId, { ...hold, status: 'posted', resolutionHash: hash });
    return { written: hold.holdId, resolvedNow: true };
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

  /** The batch's holds in id order, then every account their posts move, in id order (lockCallerAccounts sorts). */
  private async lockInOrder(
    manager: EntityManager,
    items: readonly CheckedCommand[],
  ): Promise<{
    holds: Map<string, HoldRecord>;
    accounts: Map<string, AccountState>;
    spreads: Map<CheckedCommand, RawPosting[]>;
  }> {
    const locked = await this.holds.findManyForUpdate(manager, [...new Set(items.map((item) => item.command.holdId))]);
    const holds = new Map(locked.map((hold) => [hold.holdId, hold]));
    const accountIds: string[] = [];
    const spreads = new Map<CheckedCommand, RawPosting[]>();
    for (const item of items) {
      const hold = holds.get(item.command.holdId);
      if (!hold || hold.status !== 'pending') continue;
      // Treasury and fee revenue legs go to the shard of the held (partner) account.
      const counterPostings = await this.spreader.spread(item.command.counterPostings, hold.accountId);
      spreads.set(item, counterPostings);
      accountIds.push(hold.accountId, ...counterPostings.map((posting) => posting.accountId));
    }
    const accounts = accountIds.length > 0 ? await lockCallerAccounts(manager, accountIds) : new Map();
    return { holds, accounts, spreads };
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
    // The request is refused before any account is spread or locked, as it always was.
    const postAmount = checkedPostAmount(hold, command);
    // Treasury and fee revenue legs go to the shard of the held (partner) account.
    const counterPostings = await this.spreader.spread(command.counterPostings, hold.accountId);
    const accounts = await lockCallerAccounts(manager, [
      hold.accountId,
      ...counterPostings.map((posting) => posting.accountId),
    ]);
    const draft = holdEntry(hold, command, postAmount, counterPostings, accounts);
    // The hold's whole amount leaves held in the entry's own statement, so any remainder returns to available.
    await postEntryOrRefuse(manager, draft, hash, accounts, {
      accountId: hold.accountId,
      amount: new Big(hold.amount),
    });
    return this.holds.resolve(manager, hold.holdId, {
      status: 'posted',
      postedAmount: postAmount,
      entryId: draft.entryId,
      resolutionHash: hash,
    });
  }
}

/**
 * The post amount `command` asks of `hold`, refused (before anything is spread, locked or
 * written) outside (0, amount] or mis-scaled, as is a counter-posting on the held account.
 */
function checkedPostAmount(hold: HoldRecord, command: PostHoldCommand): Big {
  const postAmount = parsePositiveAmount(command.postAmount, hold.currency);
  if (!postAmount || !isValidPostAmount(postAmount, new Big(hold.amount))) throw validationFailed(['postAmount']);
  if (command.counterPostings.some((posting) => posting.accountId === hold.accountId))
    throw validationFailed(['counterPostings']);
  return postAmount;
}

/**
 * The entry that posts `hold` for `postAmount` (checkedPostAmount): the held account debited
 * it, the counter-postings (already spread over shards) crediting the rest, balanced.
 * Refuses, before anything is written, an unbalanced or mis-scaled counter-posting.
 * `accounts`: every account it moves.
 */
function holdEntry(
  hold: HoldRecord,
  command: PostHoldCommand,
  postAmount: Big,
  counterPostings: RawPosting[],
  accounts: ReadonlyMap<string, AccountState>,
): EntryDraft {
  const postings = [
    { accountId: hold.accountId, currency: hold.currency, amount: postAmount.times(-1) },
    ...toPostings(counterPostings, accounts, 'counterPostings'),
  ];
  if (!balances(postings)) throw validationFailed(['counterPostings']);
  return {
    entryId: randomUUID(),
    kind: command.kind,
    partnerId: accounts.get(hold.accountId)!.partnerId,
    postings,
    metadata: { ...command.metadata, holdId: hold.holdId },
  };
}
