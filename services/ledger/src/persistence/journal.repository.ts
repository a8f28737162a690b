/**
 * Writes journal entries. Accounts are locked in one fixed order (by id) so two
 * entries touching the same accounts queue up instead of deadlocking; each
 * posting records the account's balance and version after it, for audit.
 */
import { AppError } from '@platform/errors';
import { EntityManager, queryPreparedIn } from '@platform/persistence';
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

const LOCK_ACCOUNTS_SQL = `
  SELECT id, currency, partner_id, code, posted::text AS posted, held::text AS held, version::text AS version, allow_negative
    FROM accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`;

/**
 * The accounts among `ids` that exist, locked in id order. Every entry and settlement round
 * runs it: prepared on the transaction's connection (by primary key whatever the ids).
 */
async function selectForUpdate(manager: EntityManager, ids: string[]): Promise<Map<string, AccountState>> {
  const rows = await queryPreparedIn<AccountRow>(manager, 'accounts_lock', LOCK_ACCOUNTS_SQL, [ids]);
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
 * accounts' new balances and versions (and, for PostHold, the held amount the
 * posted hold releases), and the postings recording them (in the draft's
 * order). The accounts are locked for the whole transaction, and the hot ones
 * (treasury, fee_revenue) serialise every entry: one round trip instead of one
 * per posting and one for the entry shortens the time each entry holds them.
 * The postings' checks and triggers run at the end of the statement, when the
 * entry row is there and held has moved, so the statement trigger sees the
 * release before the posting (its hold_released line first, as before).
 * `for_partner` lets that trigger skip service accounts' postings unrun, and
 * `held_after` (the account's held once this entry is applied) spares it a read
 * of the account row.
 *
 * `accounts.id = ANY($2)` names the rows to update by their primary key: joined
 * only to the unnest, the planner reads a small accounts table whole (one
 * sequential scan per entry) and would keep doing so as partners are added.
 */
const POST_ENTRY_SQL = `
  WITH entry AS (
    INSERT INTO entries (id, kind, partner_id, request_hash, metadata) VALUES ($1, $6, $7, $8, $9)
    RETURNING id
  ), input AS (
    SELECT account_id, currency, amount, balance_after, held_change, ordinal
      FROM unnest($2::uuid[], $3::text[], $4::numeric[], $5::numeric[], $10::numeric[])
           WITH ORDINALITY AS t(account_id, currency, amount, balance_after, held_change, ordinal)
  ), updated AS (
    UPDATE accounts SET posted = input.balance_after, held = accounts.held + input.held_change, version = accounts.version + 1
      FROM input WHERE accounts.id = ANY($2::uuid[]) AND accounts.id = input.account_id
    RETURNING accounts.id, accounts.version, accounts.held, accounts.partner_id IS NOT NULL AS for_partner
  )
  INSERT INTO postings (entry_id, account_id, currency, amount, balance_after, version_after, for_partner, held_after)
  SELECT entry.id, input.account_id, input.currency, input.amount, input.balance_after, updated.version, updated.for_partner,
         updated.held
    FROM entry, input JOIN updated ON updated.id = input.account_id
   ORDER BY input.ordinal
  RETURNING id::text AS id, account_id, currency, amount::text AS amount, balance_after::text AS balance_after,
            version_after::text AS version_after,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

/** A posting as written, with the time of its entry (the transaction's). */
export interface WrittenPosting {
  id: string;
  account_id: string;
  currency: string;
  amount: string;
  balance_after: string;
  version_after: string;
  created_at: string;
}

/** A posted hold's release, applied in the entry's own statement: the held account and the hold's whole amount. */
export interface HeldRelease {
  accountId: string;
  amount: Big;
}

interface PostingRow {
  accountId: string;
  currency: string;
  amount: string;
  balanceAfter: string;
}

/** Each posting's balance after it; refuses (before anything is written) a currency mismatch or a floor breach. */
function postingRows(draft: EntryDraft, accounts: ReadonlyMap<string, AccountState>): PostingRow[] {
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
 * `release`: a hold this entry posts, whose amount leaves the account's held in the same
 * statement (its account must be among `locked`). Answers the postings as written, in the
 * draft's order, so the caller need not read them back.
 */
export async function postEntry(
  manager: EntityManager,
  draft: EntryDraft,
  requestHash: string,
  locked?: Map<string, AccountState>,
  release?: HeldRelease,
): Promise<WrittenPosting[]> {
  assertBalanced(draft);
  const accountIds = draft.postings.map((posting) => posting.accountId);
  let accounts = locked && accountIds.every((id) => locked.has(id)) ? locked : await lockAccounts(manager, accountIds);
  if (release) accounts = releasedHeld(accounts, release);
  const rows = postingRows(draft, accounts);
  const written = await queryPreparedIn<WrittenPosting>(manager, 'entry_post', POST_ENTRY_SQL, [
    draft.entryId,
    rows.map((row) => row.accountId),
    rows.map((row) => row.currency),
    rows.map((row) => row.amount),
    rows.map((row) => row.balanceAfter),
    draft.kind,
    draft.partnerId,
    requestHash,
    JSON.stringify(draft.metadata),
    rows.map((row) => (release && row.accountId === release.accountId ? release.amount.times(-1).toString() : '0')),
  ]);
  if (written.length !== rows.length)
    throw new LedgerInvariantError(`entry ${draft.entryId} wrote ${written.length} of ${rows.length} postings`);
  return written.sort((left, right) => Number(BigInt(left.id) - BigInt(right.id)));
}

/**
 * The locked accounts with the release applied to the held account's state, computed here:
 * the row is locked, so its held amount after the entry's statement is exactly this.
 */
function releasedHeld(accounts: ReadonlyMap<string, AccountState>, release: HeldRelease): Map<string, AccountState> {
  const account = accounts.get(release.accountId);
  if (!account) throw new LedgerInvariantError(`hold release on ${release.accountId}, not among the entry's accounts`);
  const held = new Big(account.held).minus(release.amount);
  if (held.lt(0)) throw new LedgerInvariantError(`account ${account.id} held would fall below zero`);
  return new Map(accounts).set(release.accountId, { ...account, held: held.toString() });
}

/**
 * Several entries in ONE statement (a settlement round's posted holds): the entry rows, the
 * final balance, held and version of every account they move, and every posting with the
 * account's balance, version and held right after its own entry, in the order added. The
 * accounts must all be locked by the caller's transaction (`locked`, as read then). Each
 * entry is checked as postEntry checks it (balanced, currencies, floors) against the
 * accounts as the entries before it in the batch left them, so the batch writes exactly what
 * the same entries posted one by one would: the partner's row is held for one statement
 * instead of one per entry. `held_after` gives the statement-lines trigger each posting's
 * own held amount (it would read the account's final one otherwise).
 */
const POST_ENTRIES_SQL = `
  WITH entry AS (
    INSERT INTO entries (id, kind, partner_id, request_hash, metadata)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::jsonb[])
    RETURNING id
  ), balance AS (
    UPDATE accounts SET posted = b.posted, held = b.held, version = b.version
      FROM unnest($6::uuid[], $7::numeric[], $8::numeric[], $9::bigint[]) AS b(id, posted, held, version)
     WHERE accounts.id = ANY($6::uuid[]) AND accounts.id = b.id
    RETURNING accounts.id
  )
  INSERT INTO postings (entry_id, account_id, currency, amount, balance_after, version_after, for_partner, held_after)
  SELECT p.entry_id, p.account_id, p.currency, p.amount, p.balance_after, p.version_after, p.for_partner, p.held_after
    FROM unnest($10::uuid[], $11::uuid[], $12::text[], $13::numeric[], $14::numeric[], $15::bigint[], $16::boolean[],
                $17::numeric[])
         WITH ORDINALITY AS p(entry_id, account_id, currency, amount, balance_after, version_after, for_partner, held_after,
                              ordinal)
   WHERE (SELECT count(*) FROM entry) = cardinality($1::uuid[]) AND (SELECT count(*) FROM balance) = cardinality($6::uuid[])
   ORDER BY p.ordinal
  RETURNING id`;

interface BatchPosting extends PostingRow {
  entryId: string;
  versionAfter: string;
  forPartner: boolean;
  heldAfter: string;
}

export class EntryBatch {
  private readonly accounts: Map<string, AccountState>;
  private readonly entries: Array<{ draft: EntryDraft; requestHash: string }> = [];
  private readonly postings: BatchPosting[] = [];
  private readonly moved = new Set<string>();

  /** `locked`: every account the batch may move, locked by the caller's transaction, as read there. */
  constructor(locked: Map<string, AccountState>) {
    this.accounts = new Map(locked);
  }

  /** The accounts as the entries added so far leave them. */
  get state(): ReadonlyMap<string, AccountState> {
    return this.accounts;
  }

  /** A hold released outside the batch meanwhile (an expiry, already written): its account's held, as it now stands. */
  released(accountId: string, amount: Big): void {
    const account = this.accounts.get(accountId);
    if (!account) throw new LedgerInvariantError(`hold release on ${accountId}, not locked by the batch`);
    this.accounts.set(accountId, releasedHeld(this.accounts, { accountId, amount }).get(accountId)!);
  }

  /**
   * Adds an entry, checked as postEntry checks it; throws InsufficientFundsError on a floor
   * breach and leaves the batch as it was. `release`: the hold this entry posts.
   */
  add(draft: EntryDraft, requestHash: string, release?: HeldRelease): void {
    assertBalanced(draft);
    for (const posting of draft.postings)
      if (!this.accounts.has(posting.accountId))
        throw new LedgerInvariantError(`entry ${draft.entryId} moves ${posting.accountId}, not locked by the batch`);
    const accounts = release ? releasedHeld(this.accounts, release) : this.accounts;
    const rows = postingRows(draft, accounts);
    for (const row of rows) {
      const account = accounts.get(row.accountId)!;
      const next = { ...account, posted: row.balanceAfter, version: (BigInt(account.version) + 1n).toString() };
      this.accounts.set(row.accountId, next);
      this.moved.add(row.accountId);
      this.postings.push({
        ...row,
        entryId: draft.entryId,
        versionAfter: next.version,
        forPartner: account.partnerId !== null,
        heldAfter: next.held,
      });
    }
    this.entries.push({ draft, requestHash });
  }

  /** Writes every entry added, in one statement (prepared on the transaction's connection); nothing when none was. */
  async write(manager: EntityManager): Promise<void> {
    if (this.entries.length === 0) return;
    const moved = [...this.moved].sort().map((id) => this.accounts.get(id)!);
    const written = await queryPreparedIn<{ id: string }>(manager, 'entries_post_batch', POST_ENTRIES_SQL, [
      this.entries.map(({ draft }) => draft.entryId),
      this.entries.map(({ draft }) => draft.kind),
      this.entries.map(({ draft }) => draft.partnerId),
      this.entries.map(({ requestHash }) => requestHash),
      this.entries.map(({ draft }) => JSON.stringify(draft.metadata)),
      moved.map((account) => account.id),
      moved.map((account) => account.posted),
      moved.map((account) => account.held),
      moved.map((account) => account.version),
      this.postings.map((posting) => posting.entryId),
      this.postings.map((posting) => posting.accountId),
      this.postings.map((posting) => posting.currency),
      this.postings.map((posting) => posting.amount),
      this.postings.map((posting) => posting.balanceAfter),
      this.postings.map((posting) => posting.versionAfter),
      this.postings.map((posting) => posting.forPartner),
      this.postings.map((posting) => posting.heldAfter),
    ]);
    if (written.length !== this.postings.length)
      throw new LedgerInvariantError(
        `a batch of ${this.entries.length} entries wrote ${written.length} of ${this.postings.length} postings`,
      );
  }
}
