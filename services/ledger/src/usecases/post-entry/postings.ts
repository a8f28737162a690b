/**
 * Turns caller-supplied postings into checked domain postings and writes their
 * entry, refusing one that would take a partner account below zero; shared by
 * PostEntry and PostHold.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, Currency, parseAmount, parseDecimal } from '@platform/money';
import type { AccountState } from '../../domain/account';
import { POSTINGS_PER_ENTRY_MAX, Posting } from '../../domain/journal';
import { InsufficientFundsError, postEntry, WrittenPosting } from '../../persistence/journal.repository';

export interface RawPosting {
  accountId: string;
  amount: string;
}

/** An entry's kind, as its caller names it (`collection_credit`, `transfer_settlement`). */
export const ENTRY_KIND = /^[a-z][a-z0-9_]{0,63}$/;
const METADATA_KEYS_MAX = 20;
const METADATA_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
const METADATA_VALUE_CHARS_MAX = 256;
/** Decimal places accepted before each account's currency is known (USDT's). */
const AMOUNT_SCALE_MAX = 6;

export function validMetadata(metadata: Record<string, string>): boolean {
  const entries = Object.entries(metadata);
  return (
    entries.length <= METADATA_KEYS_MAX &&
    entries.every(
      ([key, value]) => METADATA_KEY.test(key) && typeof value === 'string' && value.length <= METADATA_VALUE_CHARS_MAX,
    )
  );
}

/** A signed decimal string ("-12.50", "3"); null when malformed or beyond `scale`. */
export function parseSignedAmount(value: string, scale: number): Big | null {
  const negative = typeof value === 'string' && value.startsWith('-');
  const magnitude = parseDecimal(negative ? value.slice(1) : value, scale);
  if (!magnitude || magnitude.eq(0)) return null;
  return negative ? magnitude.times(-1) : magnitude;
}

/** Shape checks that need no account: ids, signed amounts, count, one posting per account. */
export function postingsShapeValid(raw: RawPosting[], minimum: number): boolean {
  const ids = new Set(raw.map((posting) => posting.accountId));
  return (
    raw.length >= minimum &&
    raw.length <= POSTINGS_PER_ENTRY_MAX &&
    ids.size === raw.length &&
    raw.every((posting) => isUuid(posting.accountId) && parseSignedAmount(posting.amount, AMOUNT_SCALE_MAX) !== null)
  );
}

/** The postings at each account's currency and scale; VALIDATION_FAILED naming `field` otherwise. */
export function toPostings(raw: RawPosting[], accounts: ReadonlyMap<string, AccountState>, field: string): Posting[] {
  return raw.map((posting) => {
    const account = accounts.get(posting.accountId)!;
    const negative = posting.amount.startsWith('-');
    const magnitude = parseAmount(negative ? posting.amount.slice(1) : posting.amount, account.currency);
    if (!magnitude || magnitude.eq(0)) throw validationFailed([field]);
    return { accountId: account.id, currency: account.currency, amount: negative ? magnitude.times(-1) : magnitude };
  });
}

/** Whether postings sum to zero in every currency. */
export function balances(postings: Posting[]): boolean {
  const totals = new Map<Currency, Big>();
  for (const posting of postings)
    totals.set(posting.currency, (totals.get(posting.currency) ?? new Big(0)).plus(posting.amount));
  return [...totals.values()].every((total) => total.eq(0));
}

/** Writes the entry (postEntry); one that would take a partner account below zero is LEDGER_INSUFFICIENT_FUNDS. */
export async function postEntryOrRefuse(...args: Parameters<typeof postEntry>): Promise<WrittenPosting[]> {
  try {
    return await postEntry(...args);
  } catch (error) {
    if (error instanceof InsufficientFundsError) throw new AppError('LEDGER_INSUFFICIENT_FUNDS');
    throw error;
  }
}
