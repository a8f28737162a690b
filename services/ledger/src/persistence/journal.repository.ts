/**
 * Writes journal entries. Accounts are locked in one fixed order (by id) so two
 * entries touching the same accounts queue up instead of deadlocking; each
 * posting records the account's balance and version after it, for audit.
 */
import { AppError } from '@platform/errors';
import { EntityManager, queryRows } from '@platform/persistence';
import { Big } from '@platform/money';
import { AccountState } from '../domain/account';
import { applyPosting, assertBalanced, EntryDraft, LedgerInvariantError } from '../domain/journal';

export class InsufficientFundsError extends Error {
  constructor(readonly accountId: string) {
    super(`account ${accountId} would go below its floor`);
    this.name = 'InsufficientFundsError';
  }
}

interface AccountRow {
  id: string;
  currency: AccountState['currency'];
  partner_id: string | null;
  code: AccountState['code'];
  posted: string;
  held: string;
  version: string;
  allow_negative: boolean;
}

/** The accounts among `ids` that exist, locked in id order. */
async function selectForUpdate(manager: EntityManager, ids: string[]): Promise<Map<string, AccountState>> {
  const rows: AccountRow[] = await manager.query(
    `SELECT id, currency, partner_id, code, posted::text AS posted, held::text AS held, version::text AS version, allow_negative
       FROM accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
    [ids],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        currency: row.currency,
        partnerId: row.partner_id,
        code: row.code,
        posted: row.posted,
        held: row.held,
        version: row.version,
        allowNegative: row.allow_negative,
      },
    ]),
  );
}

const distinctSorted = (accountIds: string[]) => [...new Set(accountIds)].sort();

export async function lockAccounts(manager: EntityManager, accountIds: string[]): Promise<Map<string, AccountState>> {
  const ids = distinctSorted(accountIds);
  const accounts = await selectForUpdate(manager, ids);
  if (accounts.size !== ids.length) throw new LedgerInvariantError(`unknown account among ${ids.join(', ')}`);
  return accounts;
}

/**
 * lockAccounts for ids a caller supplied: an unknown one is the caller's
 * mistake, not an invariant breach. One statement: the known accounts it
 * locked before finding one missing stay locked only until the refusal rolls
 * the transaction back.
 */
export async function lockCallerAccounts(
  manager: EntityManager,
  accountIds: string[],
): Promise<Map<string, AccountState>> {
  const ids = distinctSorted(accountIds);
  const accounts = await selectForUpdate(manager, ids);
  if (accounts.size !== ids.length) throw new AppError('LEDGER_ACCOUNT_NOT_FOUND');
  return accounts;
}

/**
 * The entry and every posting of it in ONE statement: the entry row, the
 * accounts' new balances and versions, and the postings recording them (in the
 * draft's order). The accounts are locked for the whole transaction, and the
 * hot ones (treasury, fee_revenue) serialise every entry: one round trip
 * instead of one per posting and one for the entry shortens the time each
 * entry holds them. The postings' checks and triggers run at the end of the
 * statement, when the entry row is there.
 */
const POST_ENTRY_SQL = `
  WITH entry AS (
    INSERT INTO entries (id, kind, partner_id, request_hash, metadata) VALUES ($1, $6, $7, $8, $9)
    RETURNING id
  ), input AS (
    SELECT account_id, currency, amount, balance_after, ordinal
      FROM unnest($2::uuid[], $3::text[], $4::numeric[], $5::numeric[]) WITH ORDINALITY AS t(account_id, currency, amount, balance_after, ordinal)
  ), updated AS (
    UPDATE accounts SET posted = input.balance_after, version = accounts.version + 1
      FROM input WHERE accounts.id = input.account_id
    RETURNING accounts.id, accounts.version
  )
  INSERT INTO postings (entry_id, account_id, currency, amount, balance_after, version_after)
  SELECT entry.id, input.account_id, input.currency, input.amount, input.balance_after, updated.version
    FROM entry, input JOIN updated ON updated.id = input.account_id
   ORDER BY input.ordinal
  RETURNING account_id`;

interface PostingRow {
  accountId: string;
  currency: string;
  amount: string;
  balanceAfter: string;
}

/** Each posting's balance after it; refuses (before anything is written) a currency mismatch or a floor breach. */
function postingRows(draft: EntryDraft, accounts: Map<string, AccountState>): PostingRow[] {
  return draft.postings.map((posting) => {
    const account = accounts.get(posting.accountId)!;
    if (account.currency !== posting.currency) {
      throw new LedgerInvariantError(`posting ${posting.currency} to ${account.currency} account ${account.id}`);
    }
    const next = applyPosting(new Big(account.posted), new Big(account.held), posting.amount, account.allowNegative);
    if (!next) throw new InsufficientFundsError(account.id);
    return {
      accountId: account.id,
      currency: posting.currency,
      amount: posting.amount.toString(),
      balanceAfter: next.toString(),
    };
  });
}

/**
 * Posts a balanced entry in the caller's transaction. Throws InsufficientFundsError on a floor breach.
 * `locked`: the entry's accounts as the caller locked them in this transaction (their state
 * current, held included), so they are not read and locked a second time; locked here otherwise.
 */
export async function postEntry(
  manager: EntityManager,
  draft: EntryDraft,
  requestHash: string,
  locked?: Map<string, AccountState>,
): Promise<void> {
  assertBalanced(draft);
  const accountIds = draft.postings.map((posting) => posting.accountId);
  const accounts =
    locked && accountIds.every((id) => locked.has(id)) ? locked : await lockAccounts(manager, accountIds);
  const rows = postingRows(draft, accounts);
  const written = await queryRows<{ account_id: string }>(manager, POST_ENTRY_SQL, [
    draft.entryId,
    rows.map((row) => row.accountId),
    rows.map((row) => row.currency),
    rows.map((row) => row.amount),
    rows.map((row) => row.balanceAfter),
    draft.kind,
    draft.partnerId,
    requestHash,
    JSON.stringify(draft.metadata),
  ]);
  if (written.length !== rows.length)
    throw new LedgerInvariantError(`entry ${draft.entryId} wrote ${written.length} of ${rows.length} postings`);
}
