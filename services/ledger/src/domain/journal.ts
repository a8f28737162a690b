/**
 * A journal entry: one movement of value, as postings that sum to zero per
 * currency. Entries are immutable; a correction is a new entry. These checks
 * are assertions of the double-entry invariant: a caller that builds an
 * unbalanced entry has a bug, and the process must not write it.
 */
import { Big, CURRENCY_SCALE, Currency } from '@platform/money';

export interface Posting {
  accountId: string;
  currency: Currency;
  /** Signed: positive credits the account, negative debits it. */
  amount: Big;
}

export interface EntryDraft {
  entryId: string;
  kind: string;
  partnerId: string | null;
  postings: Posting[];
  metadata: Record<string, string | null>;
}

export const POSTINGS_PER_ENTRY_MAX = 16;

export class LedgerInvariantError extends Error {
  constructor(message: string) {
    super(`ledger invariant violated: ${message}`);
    this.name = 'LedgerInvariantError';
  }
}

export function assertBalanced(draft: EntryDraft): void {
  if (draft.postings.length < 2 || draft.postings.length > POSTINGS_PER_ENTRY_MAX) {
    throw new LedgerInvariantError(`entry ${draft.entryId} has ${draft.postings.length} postings`);
  }
  const totals = new Map<Currency, Big>();
  const accounts = new Set<string>();
  for (const posting of draft.postings) {
    if (posting.amount.eq(0)) throw new LedgerInvariantError(`entry ${draft.entryId} has a zero posting`);
    const scale = CURRENCY_SCALE[posting.currency];
    if (!posting.amount.round(scale).eq(posting.amount)) {
      throw new LedgerInvariantError(
        `entry ${draft.entryId} posts ${posting.amount.toString()} beyond ${posting.currency} scale`,
      );
    }
    if (accounts.has(posting.accountId))
      throw new LedgerInvariantError(`entry ${draft.entryId} posts twice to one account`);
    accounts.add(posting.accountId);
    totals.set(posting.currency, (totals.get(posting.currency) ?? new Big(0)).plus(posting.amount));
  }
  for (const [currency, total] of totals) {
    if (!total.eq(0)) throw new LedgerInvariantError(`entry ${draft.entryId} sums to ${total.toString()} ${currency}`);
  }
}

/** The new posted balance of an account after a posting, or null when it would break the account's floor. */
export function applyPosting(posted: Big, held: Big, amount: Big, allowNegative: boolean): Big | null {
  const next = posted.plus(amount);
  if (!allowNegative && next.minus(held).lt(0) && amount.lt(0)) return null;
  return next;
}
