/**
 * Reads of statement_lines (written by the triggers of the statement-lines
 * migration, never by this code): one statement per page, the account's row
 * by primary key and one index range of its lines, each line joined by
 * primary key or index to the entry or credit that caused it.
 */
import type { DataSource, PageBounds } from '@platform/persistence';
import { keysetConditions, keysetTimeSql, queryPrepared, queryRows } from '@platform/persistence';
import type { Currency } from '@platform/money';
import type { StatementLineSource } from '../domain/statement-line-type';

export interface StatementLineRow {
  lineId: string;
  accountId: string;
  currency: Currency;
  source: StatementLineSource;
  entryKind: string | null;
  amount: string;
  availableAfter: string;
  createdAt: string;
  /** created_at as the keyset cursor keeps it (microseconds). */
  createdAtExact: string;
  resourceId: string | null;
}

/**
 * The resource the partner knows the movement by: the order, transfer, send or
 * collection its entry names, the credit.received transactionId of a KES
 * credit, a USDT deposit's transaction hash; a hold line's hold id is its
 * owner's record id (orders, transfers and sends hold under their own id).
 */
const RESOURCE_ID_SQL = `COALESCE(e.metadata->>'orderId', e.metadata->>'transferId', e.metadata->>'sendId', e.metadata->>'collectionId',
  kc.transaction_id::text, e.metadata->>'txHash', l.hold_id::text)`;

/** One page of an account's statement, with the account's currency. */
export interface OwnedStatementPage {
  currency: Currency;
  rows: StatementLineRow[];
}

export class StatementRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One page of the account's lines, newest first, along
   * statement_lines_account_time_idx, or null when the account is not the
   * partner's. The ownership check and the page are one statement: the
   * account's row (by primary key) is the outer side, the page a lateral
   * join, so an account of the partner with no line in range is one row of
   * nulls and another partner's account is no row at all.
   */
  async ownedPage(partnerId: string, accountId: string, bounds: PageBounds): Promise<OwnedStatementPage | null> {
    const parameters: unknown[] = [accountId, partnerId];
    const conditions = [
      'l.account_id = a.id',
      ...keysetConditions(bounds, parameters, { createdAt: 'l.created_at', id: 'l.id' }),
    ];
    parameters.push(bounds.fetchLimit);
    // Every row carries the account's id and currency; lineId is null on the one row of an empty page.
    const rows = await queryRows<Omit<StatementLineRow, 'lineId'> & { lineId: string | null }>(
      this.dataSource.manager,
      `SELECT a.id AS "accountId", a.currency, p.*
         FROM accounts a
         LEFT JOIN LATERAL (
           SELECT l.id AS "lineId", l.source, e.kind AS "entryKind",
                  l.amount::text AS amount, l.available_after::text AS "availableAfter",
                  to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
                  ${keysetTimeSql('l.created_at')} AS "createdAtExact", ${RESOURCE_ID_SQL} AS "resourceId"
             FROM statement_lines l
             LEFT JOIN entries e ON e.id = l.entry_id
             LEFT JOIN kes_credits kc ON kc.entry_id = l.entry_id
            WHERE ${conditions.join(' AND ')}
            ORDER BY l.created_at DESC, l.id DESC LIMIT $${parameters.length}
         ) p ON true
        WHERE a.id = $1 AND a.partner_id = $2`,
      parameters,
    );
    const first = rows[0];
    if (!first) return null;
    return { currency: first.currency, rows: first.lineId === null ? [] : (rows as StatementLineRow[]) };
  }

  /**
   * The same page as ownedPage, as the JSON array the partner receives: the
   * lines' stored objects (statement_lines.presented) joined in page order,
   * or null when the account is not the partner's.
   */
  async ownedPageJson(
    partnerId: string,
    accountId: string,
    bounds: PageBounds,
  ): Promise<OwnedStatementJsonPage | null> {
    const parameters: unknown[] = [accountId, partnerId];
    const conditions = [
      'l.account_id = a.id',
      ...keysetConditions(bounds, parameters, { createdAt: 'l.created_at', id: 'l.id' }),
    ];
    parameters.push(bounds.fetchLimit, bounds.pageLimit);
    // Prepared: its planning cost more than its execution, and the generic plan is the same index range at any size.
    const [row] = await queryPrepared<{
      fetched: number;
      json: string;
      lastCreatedAtExact: string | null;
      lastLineId: string | null;
      exceptional: boolean | null;
    }>(this.dataSource, 'statement_page', ownedPageJsonSql(conditions, parameters.length - 1), parameters);
    if (!row) return null;
    const last =
      row.lastCreatedAtExact !== null && row.lastLineId !== null
        ? { createdAt: row.lastCreatedAtExact, id: row.lastLineId }
        : null;
    return { fetched: row.fetched, json: row.json, last, exceptional: row.exceptional === true };
  }
}

/**
 * A page as JSON: `fetched` lines read (one more than the page when another
 * follows), the page's last line's position, and whether any line of the page
 * has no stored object (one only the ledger's code presents: an entry kind
 * the type table does not name, an amount that is not exact at its currency's
 * scale; or one the backfill has not reached): then `json` is not to be
 * answered.
 */
export interface OwnedStatementJsonPage {
  fetched: number;
  json: string;
  last: { createdAt: string; id: string } | null;
  exceptional: boolean;
}

/**
 * One statement, the page of ownedPage as the lines' stored objects (written
 * with each line by the statement-lines-presented migration's trigger) joined
 * into one array in page order, so neither the database nor the ledger builds
 * or parses a line at read. A line without its object (one only the ledger's
 * code can present, or not yet written by that migration's backfill) flags the
 * page. The cursor's exact time is formatted for the page's last line only.
 * The parameter after the LIMIT's is the page size.
 */
function ownedPageJsonSql(conditions: string[], fetchLimitIndex: number): string {
  const pageLimit = `$${fetchLimitIndex + 1}`;
  return `SELECT count(p.id)::int AS fetched,
       '[' || coalesce(string_agg(p.presented, ',' ORDER BY p.n) FILTER (WHERE p.n <= ${pageLimit}), '') || ']' AS json,
       ${keysetTimeSql(`(min(p.created_at) FILTER (WHERE p.n = ${pageLimit}))`)} AS "lastCreatedAtExact",
       min(p.id::text) FILTER (WHERE p.n = ${pageLimit}) AS "lastLineId",
       bool_or(p.presented IS NULL) FILTER (WHERE p.n <= ${pageLimit}) AS exceptional
  FROM accounts a
  LEFT JOIN LATERAL (
    SELECT row_number() OVER (ORDER BY l.created_at DESC, l.id DESC) AS n, l.id, l.created_at, l.presented
      FROM statement_lines l
     WHERE ${conditions.join(' AND ')}
     ORDER BY l.created_at DESC, l.id DESC LIMIT $${fetchLimitIndex}
  ) p ON true
 WHERE a.id = $1 AND a.partner_id = $2
 GROUP BY a.id`;
}
