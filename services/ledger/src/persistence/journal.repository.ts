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

export async function lockAccounts(manager: EntityManager, accountIds: string[]): Promise<Map<string, AccountState>> {
  const ids = [...new Set(accountIds)].sort();
  const rows: AccountRow[] = await manager.query(
    `SELECT id, currency, partner_id, code, posted::text AS posted, held::text AS held, version::text AS version, allow_negative
       FROM accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
    [ids],
  );
  if (rows.length !== ids.length) throw new LedgerInvariantError(`unknown account among ${ids.join(', ')}`);
  return new Map(rows.map((row) => [row.id, {
    id: row.id, currency: row.currency, partnerId: row.partner_id, code: row.code,
    posted: row.posted, held: row.held, version: row.version, allowNegative: row.allow_negative,
  }]));
}

/** lockAccounts for ids a caller supplied: an unknown one is the caller's mistake, not an invariant breach. */
export async function lockCallerAccounts(manager: EntityManager, accountIds: string[]): Promise<Map<string, AccountState>> {
  const [{ known }] = await manager.query('SELECT count(*)::int AS known FROM accounts WHERE id = ANY($1::uuid[])', [[...new Set(accountIds)]]);
  if (known !== new Set(accountIds).size) throw new AppError('LEDGER_ACCOUNT_NOT_FOUND');
  return lockAccounts(manager, accountIds);
}

/** Posts a balanced entry in the caller's transaction. Throws InsufficientFundsError on a floor breach. */
export async function postEntry(manager: EntityManager, draft: EntryDraft, requestHash: string): Promise<void> {
  assertBalanced(draft);
  const accounts = await lockAccounts(manager, draft.postings.map((posting) => posting.accountId));
  await manager.query('INSERT INTO entries (id, kind, partner_id, request_hash, metadata) VALUES ($1, $2, $3, $4, $5)', [
    draft.entryId, draft.kind, draft.partnerId, requestHash, JSON.stringify(draft.metadata),
  ]);
  for (const posting of draft.postings) {
    const account = accounts.get(posting.accountId)!;
    if (account.currency !== posting.currency) {
      throw new LedgerInvariantError(`posting ${posting.currency} to ${account.currency} account ${account.id}`);
    }
    const next = applyPosting(new Big(account.posted), new Big(account.held), posting.amount, account.allowNegative);
    if (!next) throw new InsufficientFundsError(account.id);
    const [updated] = await queryRows<{ version: string }>(
      manager,
      'UPDATE accounts SET posted = $2, version = version + 1 WHERE id = $1 RETURNING version::text AS version',
      [account.id, next.toString()],
    );
    await manager.query(
      'INSERT INTO postings (entry_id, account_id, currency, amount, balance_after, version_after) VALUES ($1, $2, $3, $4, $5, $6)',
      [draft.entryId, account.id, posting.currency, posting.amount.toString(), next.toString(), updated.version],
    );
  }
}
