/**
 * Reads of statement_lines (written by the triggers of the statement-lines
 * migration, never by this code): one index range of one account per page,
 * each line joined by primary key or index to the entry, hold or credit
 * that caused it.
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

export class StatementRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The currency of the partner's own account, or null when the account is not the partner's. */
  async partnerAccountCurrency(partnerId: string, accountId: string): Promise<Currency | null> {
    const [row] = await queryRows<{ currency: Currency }>(
      this.dataSource.manager,
      'SELECT currency FROM accounts WHERE id = $1 AND partner_id = $2',
      [accountId, partnerId],
    );
    return row?.currency ?? null;
  }

  /** One page of the account's lines, newest first, along statement_lines_account_time_idx. */
  async page(accountId: string, bounds: PageBounds): Promise<StatementLineRow[]> {
    const parameters: unknown[] = [accountId];
    const conditions = [
      'l.account_id = $1',
      ...keysetConditions(bounds, parameters, { createdAt: 'l.created_at', id: 'l.id' }),
    ];
    parameters.push(bounds.fetchLimit);
    return queryRows<StatementLineRow>(
      this.dataSource.manager,
      `SELECT l.id AS "lineId", l.account_id AS "accountId", a.currency, l.source, e.kind AS "entryKind",
              l.amount::text AS amount, l.available_after::text AS "availableAfter",
              to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
              ${keysetTimeSql('l.created_at')} AS "createdAtExact", ${RESOURCE_ID_SQL} AS "resourceId"
         FROM statement_lines l
         JOIN accounts a ON a.id = l.account_id
         LEFT JOIN entries e ON e.id = l.entry_id
         LEFT JOIN kes_credits kc ON kc.entry_id = l.entry_id
        WHERE ${conditions.join(' AND ')}
        ORDER BY l.created_at DESC, l.id DESC LIMIT $${parameters.length}`,
      parameters,
    );
  }
}
