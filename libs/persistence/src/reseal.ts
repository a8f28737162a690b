/**
 * Moving secrets sealed at rest to the current key of a sealing key ring, a
 * bounded page per call. The rows of each sealed column are walked in primary-key
 * order (keyset pagination: a page starts after the last key of the previous
 * one, never at an offset), and only rows not yet under the current key are
 * read. Each value is opened and sealed again in the process (the key ring does
 * both) and written back only if it is still the value read (compare-and-swap),
 * so a secret changed meanwhile keeps its new value. A value that opens with no
 * key of the ring is left as it is and passed over: the walk goes on after it.
 *
 * The caller passes each answer's `nextAfter` to the next call until it comes
 * back empty (the pass reached the last row); a pass that moved nothing while
 * values remain means those values do not open.
 */
import { validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { DataSource } from 'typeorm';
import { recordAudit } from './audit';

/** A text column holding sealed values, and the primary key that identifies its rows. */
export interface SealedColumn {
  table: string;
  idColumn: string;
  column: string;
}

/** What a reseal needs of a key ring: the current key id, and reseal (null when already current). */
export interface ResealingKeys {
  currentKeyId: string;
  reseal(sealed: string): string | null;
}

export interface ResealOutcome {
  resealed: number;
  remaining: number;
  /** Values that open with no key of the ring (a key dropped too early, or a tampered row): left as they are. */
  unopenable: number;
  /** Where the next call continues; empty when this one reached the last row of the last column. */
  nextAfter: string;
}

export const RESEAL_BATCH_SIZE_DEFAULT = 500;
export const RESEAL_BATCH_SIZE_MAX = 5_000;
/** Primary keys here are API keys and partner ids, far shorter; a longer cursor is not one of ours. */
const CURSOR_CHARS_MAX = 256;
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
/** Sealed values of the current version name their key here: `v2.<key id>.` */
const currentPrefix = (keys: ResealingKeys) => `v2.${keys.currentKeyId}.`;

/** A position in the walk: the column (its index in the list) and the last primary key done in it. */
interface Cursor {
  columnIndex: number;
  afterId: string | null;
}

function assertIdentifiers(column: SealedColumn): void {
  for (const name of [column.table, column.idColumn, column.column]) {
    if (!IDENTIFIER.test(name)) throw new RangeError(`not a plain SQL identifier: ${name}`);
  }
}

/** `<column index>:<last primary key>`; empty for the start of a pass. */
export function encodeResealCursor(cursor: Cursor): string {
  return cursor.afterId === null ? `${cursor.columnIndex}:` : `${cursor.columnIndex}:${cursor.afterId}`;
}

/** Reads a cursor this module wrote; anything else is refused as a bad `after`. */
export function decodeResealCursor(text: string, columnCount: number): Cursor {
  if (text === '') return { columnIndex: 0, afterId: null };
  const separator = text.indexOf(':');
  const columnIndex = Number(text.slice(0, separator));
  const afterId = text.slice(separator + 1);
  if (
    text.length > CURSOR_CHARS_MAX ||
    separator < 1 ||
    !Number.isInteger(columnIndex) ||
    columnIndex < 0 ||
    columnIndex >= columnCount
  ) {
    throw validationFailed(['after']);
  }
  return { columnIndex, afterId: afterId === '' ? null : afterId };
}

/** Rows of `column` not sealed under the current key: `left(value, n) <> prefix` (no LIKE: `_` is a wildcard there). */
const notCurrent = (column: SealedColumn) =>
  `${column.column} IS NOT NULL AND left(${column.column}, length($1)) <> $1`;

/** The next page of one column's rows not under the current key, after `afterId` (from the first row when null). */
async function pageOf(
  dataSource: DataSource,
  keys: ResealingKeys,
  column: SealedColumn,
  afterId: string | null,
  limit: number,
) {
  const after = afterId === null ? '' : `AND ${column.idColumn} > $3`;
  return (await dataSource.query(
    `SELECT ${column.idColumn} AS id, ${column.column} AS sealed FROM ${column.table} WHERE ${notCurrent(column)} ${after} ORDER BY ${column.idColumn} LIMIT $2`,
    afterId === null ? [currentPrefix(keys), limit] : [currentPrefix(keys), limit, afterId],
  )) as Array<{ id: string; sealed: string }>;
}

/** Reseals one page's values; those that do not open are counted and left. */
async function resealRows(
  dataSource: DataSource,
  keys: ResealingKeys,
  column: SealedColumn,
  rows: Array<{ id: string; sealed: string }>,
) {
  let resealed = 0;
  let unopenable = 0;
  for (const row of rows) {
    let next: string | null;
    try {
      next = keys.reseal(row.sealed);
    } catch {
      unopenable += 1;
      continue;
    }
    if (next === null) continue;
    const [, updated] = (await dataSource.query(
      `UPDATE ${column.table} SET ${column.column} = $1 WHERE ${column.idColumn} = $2 AND ${column.column} = $3`,
      [next, row.id, row.sealed],
    )) as [unknown, number];
    resealed += updated;
  }
  return { resealed, unopenable };
}

async function countRemaining(dataSource: DataSource, keys: ResealingKeys, column: SealedColumn): Promise<number> {
  const [row] = (await dataSource.query(
    `SELECT count(*)::int AS remaining FROM ${column.table} WHERE ${notCurrent(column)}`,
    [currentPrefix(keys)],
  )) as Array<{ remaining: number }>;
  return row.remaining;
}

/**
 * Looks at most at `batchSize` values not under the current key, across `columns` in order,
 * starting at `after` (a previous outcome's `nextAfter`, or empty); reseals those that open;
 * then counts what is left.
 */
export async function resealColumns(
  dataSource: DataSource,
  keys: ResealingKeys,
  columns: SealedColumn[],
  batchSize: number,
  after = '',
): Promise<ResealOutcome> {
  columns.forEach(assertIdentifiers);
  const limit = Math.min(Math.max(1, batchSize), RESEAL_BATCH_SIZE_MAX);
  let cursor: Cursor | null = decodeResealCursor(after, columns.length);
  let looked = 0;
  let resealed = 0;
  let unopenable = 0;
  while (cursor !== null && looked < limit) {
    const column = columns[cursor.columnIndex];
    const rows = await pageOf(dataSource, keys, column, cursor.afterId, limit - looked);
    const batch = await resealRows(dataSource, keys, column, rows);
    looked += rows.length;
    resealed += batch.resealed;
    unopenable += batch.unopenable;
    // A short page is the end of this column; a full one may have rows after it.
    if (looked < limit)
      cursor = cursor.columnIndex + 1 < columns.length ? { columnIndex: cursor.columnIndex + 1, afterId: null } : null;
    else cursor = { columnIndex: cursor.columnIndex, afterId: rows[rows.length - 1].id };
  }
  let remaining = 0;
  for (const column of columns) remaining += await countRemaining(dataSource, keys, column);
  return { resealed, remaining, unopenable, nextAfter: cursor === null ? '' : encodeResealCursor(cursor) };
}

/**
 * The operator's reseal of one service's sealed columns (its ResealSecrets RPC):
 * a page per call, logged with counts and key id, never a value, and recorded
 * in the service's audit trail when it moved any.
 */
export class ResealSecretsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: ResealingKeys,
    private readonly columns: SealedColumn[],
    private readonly logger: Logger,
  ) {}

  async execute(command: {
    batchSize: number;
    after?: string;
  }): Promise<{ currentKeyId: string; resealed: number; remaining: number; nextAfter: string }> {
    const outcome = await resealColumns(
      this.dataSource,
      this.keys,
      this.columns,
      command.batchSize || RESEAL_BATCH_SIZE_DEFAULT,
      command.after ?? '',
    );
    this.logger.info('secrets resealed under the current key', {
      currentKeyId: this.keys.currentKeyId,
      resealed: outcome.resealed,
      remaining: outcome.remaining,
      unopenable: outcome.unopenable,
      passEnded: outcome.nextAfter === '',
    });
    if (outcome.unopenable > 0) {
      this.logger.error('sealed secrets that open with no key of the ring were left as they are', {
        unopenable: outcome.unopenable,
        currentKeyId: this.keys.currentKeyId,
      });
    }
    // Each value was rewritten on its own (compare-and-swap), so the batch is recorded once it is done.
    if (outcome.resealed > 0) {
      await recordAudit(this.dataSource.manager, {
        action: 'secrets.resealed',
        partnerId: null,
        details: { currentKeyId: this.keys.currentKeyId, resealed: outcome.resealed, remaining: outcome.remaining },
      });
    }
    return {
      currentKeyId: this.keys.currentKeyId,
      resealed: outcome.resealed,
      remaining: outcome.remaining,
      nextAfter: outcome.nextAfter,
    };
  }
}
