/**
 * Opaque page cursors for GET /v1/collections: the (createdAt, id) of the last
 * collection of a page, base64url-encoded. Newest first, so the next page is
 * everything strictly older in that order; collections created meanwhile
 * never shift a page.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CURSOR_LENGTH_MAX = 200;

export interface CursorPosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(`${position.createdAt.toISOString()}|${position.id}`, 'utf8').toString('base64url');
}

/** The position, or null when the text is not a cursor this service made. */
export function decodeCursor(cursor: string): CursorPosition | null {
  if (cursor.length === 0 || cursor.length > CURSOR_LENGTH_MAX || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const [createdAt, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !createdAt || !id || !ISO_MS.test(createdAt) || !UUID.test(id)) return null;
  const date = new Date(createdAt);
  return Number.isNaN(date.getTime()) ? null : { createdAt: date, id };
}
