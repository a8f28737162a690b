import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import type { EntriesRepository, HistoryItem } from '../../persistence/entries.repository';

export const HISTORY_LIMIT_DEFAULT = 50;
export const HISTORY_LIMIT_MAX = 200;
/** The cursor is the last posting id of the previous page, base64url so callers treat it as opaque. */
const CURSOR_PATTERN = /^[1-9]\d{0,18}$/;

/** An account's postings, newest first, a bounded page at a time. */
export class ListAccountHistoryUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly entries: EntriesRepository,
  ) {}

  async execute(command: {
    accountId: string;
    cursor: string;
    limit: number;
  }): Promise<{ items: HistoryItem[]; nextCursor: string }> {
    const beforeId = this.validate(command);
    const [account] = await this.dataSource.query('SELECT 1 FROM accounts WHERE id = $1', [command.accountId]);
    if (!account) throw new AppError('LEDGER_ACCOUNT_NOT_FOUND');
    const limit = command.limit === 0 ? HISTORY_LIMIT_DEFAULT : command.limit;
    // One extra row says whether another page exists.
    const rows = await this.entries.history(this.dataSource, command.accountId, beforeId, limit + 1);
    const items = rows.slice(0, limit);
    const nextCursor = rows.length > limit ? Buffer.from(items[items.length - 1].postingId).toString('base64url') : '';
    return { items, nextCursor };
  }

  private validate(command: { accountId: string; cursor: string; limit: number }): string | null {
    const bad: string[] = [];
    if (!isUuid(command.accountId)) bad.push('accountId');
    if (!Number.isInteger(command.limit) || command.limit < 0 || command.limit > HISTORY_LIMIT_MAX) bad.push('limit');
    const beforeId = command.cursor === '' ? null : Buffer.from(command.cursor, 'base64url').toString();
    if (beforeId !== null && !CURSOR_PATTERN.test(beforeId)) bad.push('cursor');
    if (bad.length > 0) throw validationFailed(bad);
    return beforeId;
  }
}
