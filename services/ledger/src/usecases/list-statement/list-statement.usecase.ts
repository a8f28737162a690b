/**
 * A partner's statement of one of its own accounts, a page at a time, newest
 * first. The running available balance is stored on each line when the
 * balance moves (see the statement-lines migration for why), so a page reads
 * only its own lines: exact, and flat in the account's history. The ownership
 * check and the page are one statement, and amounts are put at the currency's
 * scale from their stored text (stored-amount.ts): a page of a hundred lines
 * costs little more than one read. An account
 * that is not the partner's is ACCOUNT_NOT_FOUND, the same answer as an
 * unknown one, so account ids of other partners cannot be probed.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { encodeKeysetCursor, type PageBounds, pageOf, readPageBounds } from '@platform/persistence';
import { statementLineType, StatementLineType } from '../../domain/statement-line-type';
import { storedAmountAtScale } from '../../domain/stored-amount';
import type { StatementRepository } from '../../persistence/statement.repository';

export interface ListStatementQuery {
  partnerId: string;
  accountId: string;
  from?: string;
  to?: string;
  limit: number;
  cursor: string;
}

export interface StatementLine {
  lineId: string;
  accountId: string;
  currency: string;
  type: StatementLineType;
  amount: string;
  availableAfter: string;
  createdAt: string;
  resourceId: string;
  entryKind: string;
}

/** A page as the partner receives it: `json` the array of its lines, or, for a page only `execute` can present, its lines. */
export type StatementJsonPage =
  | { json: string; lines?: undefined; nextCursor: string }
  | { json?: undefined; lines: StatementLine[]; nextCursor: string };

export class ListStatementUseCase {
  constructor(private readonly statements: StatementRepository) {}

  async execute(query: ListStatementQuery): Promise<{ lines: StatementLine[]; nextCursor: string }> {
    return this.linesPage(query, checkedBounds(query));
  }

  /**
   * The page `execute` answers, as the JSON array the partner receives, made
   * of the objects stored with the lines without the ledger handling each
   * line; a page with a line only the ledger's code can present (an entry
   * kind named by its words, an amount needing rounding, a line the backfill
   * has not reached) is read again and answered as lines.
   */
  async executeAsJsonArray(query: ListStatementQuery): Promise<StatementJsonPage> {
    const bounds = checkedBounds(query);
    const owned =
      isUuid(query.partnerId) && isUuid(query.accountId)
        ? await this.statements.ownedPageJson(query.partnerId, query.accountId, bounds)
        : null;
    if (owned === null) throw new AppError('ACCOUNT_NOT_FOUND');
    if (owned.exceptional) return this.linesPage(query, bounds);
    const nextCursor = owned.fetched > bounds.pageLimit && owned.last !== null ? encodeKeysetCursor(owned.last) : '';
    return { json: owned.json, nextCursor };
  }

  private async linesPage(
    query: ListStatementQuery,
    bounds: PageBounds,
  ): Promise<{ lines: StatementLine[]; nextCursor: string }> {
    const owned =
      isUuid(query.partnerId) && isUuid(query.accountId)
        ? await this.statements.ownedPage(query.partnerId, query.accountId, bounds)
        : null;
    if (owned === null) throw new AppError('ACCOUNT_NOT_FOUND');
    const { page, nextCursor } = pageOf(owned.rows, bounds, (row) => ({
      createdAt: row.createdAtExact,
      id: row.lineId,
    }));
    const lines = page.map((row) => ({
      lineId: row.lineId,
      accountId: row.accountId,
      currency: owned.currency,
      type: statementLineType(row.source, row.entryKind),
      amount: storedAmountAtScale(row.amount, owned.currency),
      availableAfter: storedAmountAtScale(row.availableAfter, owned.currency),
      createdAt: row.createdAt,
      resourceId: row.source === 'opening_balance' ? '' : (row.resourceId ?? ''),
      entryKind: row.entryKind ?? '',
    }));
    return { lines, nextCursor };
  }
}

/** The page's bounds, after checking every parameter (each bad one named). */
function checkedBounds(query: ListStatementQuery): PageBounds {
  const bad: string[] = [];
  const bounds = readPageBounds(query, bad);
  if (bad.length > 0) throw validationFailed(bad);
  return bounds;
}
