/** Reads of the immutable journal: one entry with its postings, and an account's history page. */
import type { DataSource, EntityManager } from '@platform/persistence';
import { Big, Currency, formatAmount } from '@platform/money';

export interface EntryPostingRecord {
  accountId: string;
  currency: Currency;
  amount: string;
  balanceAfter: string;
  versionAfter: string;
}

export interface EntryRecord {
  entryId: string;
  kind: string;
  partnerId: string | null;
  requestHash: string;
  metadata: Record<string, string>;
  createdAt: string;
  postings: EntryPostingRecord[];
}

export interface HistoryItem {
  postingId: string;
  entryId: string;
  kind: string;
  amount: string;
  balanceAfter: string;
  versionAfter: string;
  createdAt: string;
}

interface EntryRow {
  id: string;
  kind: string;
  partner_id: string | null;
  request_hash: string;
  metadata: Record<string, string>;
  created_at: string;
}

interface PostingRow {
  account_id: string;
  currency: string;
  amount: string;
  balance_after: string;
  version_after: string;
}

/** An entry and its postings (in posting order) as callers see them, from rows read or just written. */
export function toEntryRecord(entry: EntryRow, postings: PostingRow[]): EntryRecord {
  return {
    entryId: entry.id,
    kind: entry.kind,
    partnerId: entry.partner_id,
    requestHash: entry.request_hash,
    metadata: entry.metadata,
    createdAt: entry.created_at,
    postings: postings.map((row) => ({
      accountId: row.account_id,
      currency: row.currency as Currency,
      amount: formatAmount(new Big(row.amount), row.currency as Currency),
      balanceAfter: formatAmount(new Big(row.balance_after), row.currency as Currency),
      versionAfter: row.version_after,
    })),
  };
}

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export class EntriesRepository {
  /** Serialises work on one caller-chosen entry id (the row does not exist yet to lock). */
  async lockEntryId(manager: EntityManager, entryId: string): Promise<void> {
    await manager.query("SELECT pg_advisory_xact_lock(hashtextextended('entry:' || $1, 0))", [entryId]);
  }

  async find(manager: EntityManager | DataSource, entryId: string): Promise<EntryRecord | null> {
    const [entry]: EntryRow[] = await manager.query(
      `SELECT id, kind, partner_id, request_hash, metadata, ${ISO('created_at')} AS created_at FROM entries WHERE id = $1`,
      [entryId],
    );
    if (!entry) return null;
    const postings: PostingRow[] = await manager.query(
      `SELECT account_id, currency, amount::text AS amount, balance_after::text AS balance_after, version_after::text AS version_after
         FROM postings WHERE entry_id = $1 ORDER BY id`,
      [entryId],
    );
    return toEntryRecord(entry, postings);
  }

  /**
   * Postings of one account, newest first, strictly before posting `beforeId` (one of this
   * account's) when given. Walked by the account's (account_id, version_after) index: an
   * account's versions rise with its posting ids (each posting is written under the account's
   * row lock), so the order is the same. Ordered by id, the planner may walk the primary key
   * backwards through every other account's newer postings (6,103 rows read for a page of 50
   * once a busy account's history was 20,000, measured by test/query-plans.int.spec.ts).
   */
  async history(
    dataSource: DataSource,
    accountId: string,
    beforeId: string | null,
    limit: number,
  ): Promise<HistoryItem[]> {
    const rows: {
      id: string;
      entry_id: string;
      kind: string;
      currency: Currency;
      amount: string;
      balance_after: string;
      version_after: string;
      created_at: string;
    }[] = await dataSource.query(
      `SELECT p.id::text AS id, p.entry_id, e.kind, p.currency, p.amount::text AS amount, p.balance_after::text AS balance_after,
                p.version_after::text AS version_after, ${ISO('p.created_at')} AS created_at
           FROM postings p JOIN entries e ON e.id = p.entry_id
          WHERE p.account_id = $1
            AND ($2::bigint IS NULL OR p.version_after < (SELECT c.version_after FROM postings c WHERE c.id = $2::bigint AND c.account_id = $1))
          ORDER BY p.version_after DESC LIMIT $3`,
      [accountId, beforeId, limit],
    );
    return rows.map((row) => ({
      postingId: row.id,
      entryId: row.entry_id,
      kind: row.kind,
      amount: formatAmount(new Big(row.amount), row.currency),
      balanceAfter: formatAmount(new Big(row.balance_after), row.currency),
      versionAfter: row.version_after,
      createdAt: row.created_at,
    }));
  }
}
