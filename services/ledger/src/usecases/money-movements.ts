/**
 * One structured info line per money movement the ledger commits, so an
 * operator following a request's trace (every line carries its `traceId`) sees
 * what the ledger did for it. Use cases call it after their transaction has
 * committed and only for a movement that transaction made: a rolled-back
 * request, or a retry answered with the original entry or hold, writes none.
 *
 * A line names ids, the kind, amounts and currencies only: never account
 * numbers, references a payer typed, metadata or request hashes.
 */
import type { Logger } from '@platform/logger';
import { Big, Currency, formatAmount } from '@platform/money';
import type { EntryRecord } from '../persistence/entries.repository';
import type { HoldRecord } from '../persistence/holds.repository';
import type { KesCreditRecord } from '../persistence/kes-credits.repository';

export interface MoneyMovementLog {
  entryPosted(entry: EntryRecord): void;
  holdPlaced(hold: HoldRecord): void;
  /** A hold that has just been posted, voided or expired. */
  holdResolved(hold: HoldRecord): void;
  kesCreditRecorded(credit: KesCreditRecord): void;
}

/**
 * What an entry moved, per currency: the sum of its credit legs (its postings
 * sum to zero per currency, so the debit legs move the same).
 */
export function amountsMoved(entry: Pick<EntryRecord, 'postings'>): Partial<Record<Currency, string>> {
  const credited = new Map<Currency, Big>();
  for (const posting of entry.postings) {
    const amount = new Big(posting.amount);
    if (amount.gt(0)) credited.set(posting.currency, (credited.get(posting.currency) ?? new Big(0)).plus(amount));
  }
  return Object.fromEntries([...credited].map(([currency, amount]) => [currency, formatAmount(amount, currency)]));
}

/** The log of a ledger process, written through its logger. */
export function loggedMoneyMovements(logger: Logger): MoneyMovementLog {
  return {
    entryPosted: (entry) =>
      logger.info('entry posted', {
        entryId: entry.entryId,
        kind: entry.kind,
        partnerId: entry.partnerId,
        amounts: amountsMoved(entry),
      }),
    holdPlaced: (hold) =>
      logger.info('hold placed', {
        holdId: hold.holdId,
        owner: hold.owner,
        amount: hold.amount,
        currency: hold.currency,
        expiresAt: hold.expiresAt,
      }),
    holdResolved: (hold) =>
      logger.info(`hold ${hold.status}`, {
        holdId: hold.holdId,
        owner: hold.owner,
        amount: hold.amount,
        postedAmount: hold.postedAmount,
        currency: hold.currency,
        entryId: hold.entryId,
      }),
    kesCreditRecorded: (credit) =>
      logger.info('KES credit recorded', {
        transactionId: credit.transactionId,
        bankTransactionId: credit.bankTransactionId,
        entryId: credit.entryId,
        partnerId: credit.partnerId,
        matched: credit.partnerId !== null,
        amount: credit.amountKes,
        currency: 'KES',
        rail: credit.rail,
      }),
  };
}
