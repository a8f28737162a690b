/**
 * Reads of statement_lines (written by the triggers of the statement-lines
 * migration, never by this code): one statement per page, the account's row
 * by primary key and one index range of its lines, each line joined by
 * primary key or index to the entry or credit that caused it.
 */
import type { DataSource, PageBounds } from '@platform/persistence';
import { keysetConditions, keysetTimeSql, queryRows } from '@platform/persistence';
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
}
