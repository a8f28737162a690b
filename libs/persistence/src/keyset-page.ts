/**
 * Newest-first pages of a partner's records, by keyset: the cursor is the
 * (created_at, id) of the last record of a page, opaque to partners
 * (base64url), and the next page is everything strictly older in that order.
 * Records created while a partner pages sort before the first page, so they
 * never shift or repeat a page.
 *
 * The position keeps created_at exactly as PostgreSQL stores it (microseconds):
 * a cursor rounded to milliseconds would skip the records created later in
 * the same millisecond as the last one of a page. Services select the column
 * through keysetTimeSql for the cursor; the conditions compare with `$n::timestamptz`.
 * Cursors holding an ISO 8601 time with milliseconds (made before) still read.
 */
import { isUuid } from '@platform/ids';

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 100;
const CURSOR_LENGTH_MAX = 200;
/** As PostgreSQL prints a timestamptz (`2026-11-26 07:33:37.123456+00`), or ISO 8601 with milliseconds and Z. */
const POSITION_TIME =
  /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$/;

export interface KeysetPosition {
  /** The record's created_at as PostgreSQL prints it (or an ISO 8601 time). */
  createdAt: string;
  id: string;
}

/** SQL giving `column` (a timestamptz) as a position time: UTC, microseconds, whatever the session's DateStyle. */
export function keysetTimeSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US"+00"')`;
}

export function encodeKeysetCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.createdAt}|${position.id}`, 'utf8').toString('base64url');
}

/** The position, or null when the text is not a cursor made here. */
export function decodeKeysetCursor(cursor: string): KeysetPosition | null {
  if (cursor.length === 0 || cursor.length > CURSOR_LENGTH_MAX || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const [createdAt, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !createdAt || !id || !POSITION_TIME.test(createdAt) || !isUuid(id)) return null;
  return Number.isNaN(Date.parse(createdAt.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00')))
    ? null
    : { createdAt, id };
}

/** A page request as the services receive it (the gateway has validated the shape already). */
export interface PageQuery {
  from?: string;
  to?: string;
  /** 0: the default. */
  limit: number;
  /** "": the first page. */
  cursor: string;
}

/** The checked bounds of a page: `limit` here is one more than the page, to tell whether another follows. */
export interface PageBounds {
  from: Date | null;
  to: Date | null;
  after: KeysetPosition | null;
  fetchLimit: number;
  pageLimit: number;
}

function parseTime(value: string | undefined, field: string, bad: string[]): Date | null {
  if (value === undefined) return null;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) bad.push(field);
  return time;
}

/**
 * Checks the paging parameters, adding each bad one's name to `bad` (the
 * caller adds its filters' and throws once, naming all of them).
 */
export function readPageBounds(query: PageQuery, bad: string[]): PageBounds {
  const from = parseTime(query.from, 'from', bad);
  const to = parseTime(query.to, 'to', bad);
  const pageLimit = query.limit === 0 ? PAGE_LIMIT_DEFAULT : query.limit;
  if (!Number.isInteger(pageLimit) || pageLimit < 1 || pageLimit > PAGE_LIMIT_MAX) bad.push('limit');
  const after = query.cursor === '' ? null : decodeKeysetCursor(query.cursor);
  if (query.cursor !== '' && after === null) bad.push('cursor');
  return { from, to, after, fetchLimit: pageLimit + 1, pageLimit };
}

/** The page and the cursor of the next one ("" on the last page), from rows fetched with `fetchLimit`. */
export function pageOf<T>(
  rows: readonly T[],
  bounds: PageBounds,
  positionOf: (row: T) => KeysetPosition,
): { page: T[]; nextCursor: string } {
  const page = rows.slice(0, bounds.pageLimit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > bounds.pageLimit && last !== undefined ? encodeKeysetCursor(positionOf(last)) : '';
  return { page, nextCursor };
}

/**
 * The WHERE conditions of a keyset page over `createdAtColumn`/`idColumn`,
 * with their parameters appended to `parameters` (numbered after what is
 * there); ORDER BY created_at DESC, id DESC and LIMIT are the caller's.
 */
export function keysetConditions(
  bounds: PageBounds,
  parameters: unknown[],
  columns: { createdAt: string; id: string } = { createdAt: 'created_at', id: 'id' },
): string[] {
  const conditions: string[] = [];
  const add = (value: unknown) => {
    parameters.push(value);
    return `$${parameters.length}`;
  };
  if (bounds.from !== null) conditions.push(`${columns.createdAt} >= ${add(bounds.from)}`);
  if (bounds.to !== null) conditions.push(`${columns.createdAt} < ${add(bounds.to)}`);
  if (bounds.after !== null) {
    const createdAt = add(bounds.after.createdAt);
    conditions.push(
      `(${columns.createdAt}, ${columns.id}) < (${createdAt}::timestamptz, ${add(bounds.after.id)}::uuid)`,
    );
  }
  return conditions;
}

/**
 * One newest-first page of `table` as SQL and its parameters: the rows `where` selects (its
 * conditions use the first `parameters`), each equality filter that is set (null: no
 * condition), the page's time window and the rows after its cursor, at most `fetchLimit`.
 * Every row comes with its exact listing position as "createdAtExact". The partner's index on
 * (partner_id, created_at DESC, id DESC) serves it whatever the filters.
 */
export function newestFirstPageSql(spec: {
  table: string;
  select: string;
  where: string[];
  parameters: unknown[];
  equals?: Record<string, unknown>;
  bounds: PageBounds;
  columns: { createdAt: string; id: string };
}): { sql: string; parameters: unknown[] } {
  const parameters = [...spec.parameters];
  const conditions = [...spec.where];
  for (const [column, value] of Object.entries(spec.equals ?? {})) {
    if (value === null || value === undefined) continue;
    parameters.push(value);
    conditions.push(`${column} = $${parameters.length}`);
  }
  conditions.push(...keysetConditions(spec.bounds, parameters, spec.columns));
  parameters.push(spec.bounds.fetchLimit);
  const { createdAt, id } = spec.columns;
  const sql = `SELECT ${spec.select}, ${keysetTimeSql(createdAt)} AS "createdAtExact" FROM ${spec.table} WHERE ${conditions.join(' AND ')}
    ORDER BY ${createdAt} DESC, ${id} DESC LIMIT $${parameters.length}`;
  return { sql, parameters };
}
