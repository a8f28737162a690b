import { AppError, validationFailed } from '@platform/errors';
import { Big, parseDecimal, parsePositiveAmount } from '@platform/money';
import { claimIdempotently, DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { holdFits } from '../../domain/hold';
import { isOwnerOf } from '../../domain/hold-owner';
import { isUuid } from '../../domain/ids';
import { requestHash } from '../../domain/request-hash';
import type { HoldRecord, HoldsRepository } from '../../persistence/holds.repository';
import { lockCallerAccounts } from '../../persistence/journal.repository';
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
 * never together exceed its available balance.
 */
export class PlaceHoldUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly holds: HoldsRepository,
    private readonly movements: MoneyMovementLog,
  ) {}

  async execute(command: PlaceHoldCommand): Promise<HoldRecord> {
    const hash = this.validate(command);
    const { hold, placed } = await withTransaction(this.dataSource, async (manager) => {
      // The lock serialises requests for one id: the claim never meets a twin, so only the hash is compared.
      await this.holds.lockHoldId(manager, command.holdId);
      const { resource, replayed } = await claimIdempotently({
        requestHash: hash,
        reusedError: 'LEDGER_ID_REUSED',
        find: () => this.holds.find(manager, command.holdId),
        claim: () => this.placeNew(manager, command, hash),
      });
      return { hold: replayed ? await this.retried(manager, resource, command) : resource, placed: !replayed };
    });
    if (placed) this.movements.holdPlaced(hold);
    return hold;
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

  private async placeNew(manager: EntityManager, command: PlaceHoldCommand, hash: string): Promise<HoldRecord> {
    const account = (await lockCallerAccounts(manager, [command.accountId])).get(command.accountId)!;
    const amount = parsePositiveAmount(command.amount, account.currency);
    if (!amount) throw validationFailed(['amount']);
    // Only a new hold must expire in the future; a retry of an old one returned above.
    if (command.expiresAt !== null && Date.parse(command.expiresAt) <= Date.now())
      throw validationFailed(['expiresAt']);
    if (!holdFits(new Big(account.posted), new Big(account.held), amount, account.allowNegative)) {
      throw new AppError('LEDGER_INSUFFICIENT_FUNDS');
    }
    return this.holds.place(manager, {
      holdId: command.holdId,
      accountId: account.id,
      currency: account.currency,
      amount,
      expiresAt: command.expiresAt === null ? null : new Date(command.expiresAt).toISOString(),
      metadata: command.metadata,
      requestHash: hash,
      owner: command.owner,
    });
  }
}
