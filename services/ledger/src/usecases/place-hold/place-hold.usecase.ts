import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { parseDecimal } from '@platform/money';
import { DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { isOwnerOf } from '../../domain/hold-owner';
import { requestHash } from '../../domain/request-hash';
import type { HoldRecord, HoldsRepository } from '../../persistence/holds.repository';
import type { MoneyMovementLog } from '../money-movements';
import { validMetadata } from '../post-entry/postings';

export interface PlaceHoldCommand {
  holdId: string;
  accountId: string;
  amount: string;
  expiresAt: string | null;
  metadata: Record<string, string>;
  /** "<caller>:<kind>:<id>", or null (callers that predate owners). Not part of the request hash. */
  owner: string | null;
  /** The identity that placed the hold (its certificate's). */
  caller: string | null;
}

/** Decimal places accepted before the account's currency is known (USDT's). */
const AMOUNT_SCALE_MAX = 6;

/**
 * Reserves an amount on one account: held += amount, exactly once per caller
 * id. The account row is locked, so concurrent holds on one account queue and
 * never together exceed its available balance; the whole placement is one
 * statement (HoldsRepository.placeOrFind), so that lock lasts one statement
 * and its commit.
 */
export class PlaceHoldUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly holds: HoldsRepository,
    private readonly movements: MoneyMovementLog,
  ) {}

  async execute(command: PlaceHoldCommand): Promise<HoldRecord> {
    const hash = this.validate(command);
    const placement = await this.holds.placeOrFind(this.dataSource, {
      holdId: command.holdId,
      accountId: command.accountId,
      amount: command.amount,
      expiresAt: command.expiresAt === null ? null : new Date(command.expiresAt).toISOString(),
      // Only a new hold must expire in the future; a retry of an old one is answered before this is looked at.
      expiresInPast: command.expiresAt !== null && Date.parse(command.expiresAt) <= Date.now(),
      metadata: command.metadata,
      requestHash: hash,
      owner: command.owner,
    });
    switch (placement.outcome) {
      case 'placed':
        this.movements.holdPlaced(placement.hold);
        return placement.hold;
      case 'existing':
        return this.replayed(placement.hold, command, hash);
      case 'account_not_found':
        throw new AppError('LEDGER_ACCOUNT_NOT_FOUND');
      case 'bad_amount':
        throw validationFailed(['amount']);
      case 'expires_in_past':
        throw validationFailed(['expiresAt']);
      case 'insufficient_funds':
        throw new AppError('LEDGER_INSUFFICIENT_FUNDS');
    }
  }

  /** The same request again answers the original hold; another request under its id is refused. */
  private async replayed(existing: HoldRecord, command: PlaceHoldCommand, hash: string): Promise<HoldRecord> {
    if (existing.requestHash !== hash) throw new AppError('LEDGER_ID_REUSED');
    if (command.owner === null || existing.owner === command.owner) return existing;
    // Rare (a caller that started naming owners retries an old hold): under the id's lock, as a placement is.
    return withTransaction(this.dataSource, async (manager) => {
      await this.holds.lockHoldId(manager, command.holdId);
      const current = (await this.holds.find(manager, command.holdId))!;
      return this.retried(manager, current, command);
    });
  }

  private validate(command: PlaceHoldCommand): string {
    const bad: string[] = [];
    if (!isUuid(command.holdId)) bad.push('holdId');
    if (!isUuid(command.accountId)) bad.push('accountId');
    const amount = parseDecimal(command.amount, AMOUNT_SCALE_MAX);
    if (!amount || amount.lte(0)) bad.push('amount');
    if (command.expiresAt !== null && Number.isNaN(Date.parse(command.expiresAt))) bad.push('expiresAt');
    if (!validMetadata(command.metadata)) bad.push('metadata');
    if (command.owner !== null && !isOwnerOf(command.owner, command.caller)) bad.push('owner');
    if (bad.length > 0) throw validationFailed(bad);
    return requestHash({
      accountId: command.accountId,
      amount: amount!.toString(),
      expiresAt: command.expiresAt === null ? null : new Date(command.expiresAt).toISOString(),
      metadata: command.metadata,
    });
  }

  /**
   * The same request again answers the original hold. The owner is compared on
   * its own, so a caller that starts naming owners can still retry a hold it
   * placed before: that hold adopts the owner.
   */
  private async retried(manager: EntityManager, existing: HoldRecord, command: PlaceHoldCommand): Promise<HoldRecord> {
    if (command.owner === null || existing.owner === command.owner) return existing;
    if (existing.owner !== null) throw new AppError('LEDGER_ID_REUSED');
    return this.holds.adoptOwner(manager, existing.holdId, command.owner);
  }
}
