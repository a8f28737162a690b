/**
 * A partner's statement of one of its own accounts, a page at a time, newest
 * first. The running available balance is stored on each line when the
 * balance moves (see the statement-lines migration for why), so a page reads
 * only its own lines: exact, and flat in the account's history. An account
 * that is not the partner's is ACCOUNT_NOT_FOUND, the same answer as an
 * unknown one, so account ids of other partners cannot be probed.
 */
import { AppError, validationFailed } from '@platform/errors';
import { Big, formatAmount } from '@platform/money';
import { pageOf, readPageBounds } from '@platform/persistence';
import { isUuid } from '../../domain/ids';
import { statementLineType, StatementLineType } from '../../domain/statement-line-type';
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

export class ListStatementUseCase {
  constructor(private readonly statements: StatementRepository) {}

  async execute(query: ListStatementQuery): Promise<{ lines: StatementLine[]; nextCursor: string }> {
    const bad: string[] = [];
    const bounds = readPageBounds(query, bad);
    if (bad.length > 0) throw validationFailed(bad);
    const owned =
      isUuid(query.partnerId) && isUuid(query.accountId)
        ? await this.statements.partnerAccountCurrency(query.partnerId, query.accountId)
        : null;
    if (owned === null) throw new AppError('ACCOUNT_NOT_FOUND');
    const rows = await this.statements.page(query.accountId, bounds);
    const { page, nextCursor } = pageOf(rows, bounds, (row) => ({ createdAt: row.createdAtExact, id: row.lineId }));
    const lines = page.map((row) => ({
      lineId: row.lineId,
      accountId: row.accountId,
      currency: row.currency,
      type: statementLineType(row.source, row.entryKind),
      amount: formatAmount(new Big(row.amount), row.currency),
      availableAfter: formatAmount(new Big(row.availableAfter), row.currency),
      createdAt: row.createdAt,
      resourceId: row.source === 'opening_balance' ? '' : (row.resourceId ?? ''),
      entryKind: row.entryKind ?? '',
    }));
    return { lines, nextCursor };
  }
}
