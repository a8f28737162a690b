/**
 * How every list answers: a bare JSON array, newest first, and the next page's
 * cursor in X-Next-Cursor, absent on the last page (so a client pages until the
 * header is gone, and a list grows fields additively).
 */
import type { Response } from 'express';
import { JSON_CONTENT_TYPE } from './json-response';

export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';

export function answerPage<T>(res: Response, items: readonly T[], nextCursor: string): void {
  if (nextCursor) res.setHeader(NEXT_CURSOR_HEADER, nextCursor);
  res.status(200).json(items);
}

/** The same answer as answerPage, for a page a service sent already serialised (the bytes answered as they came). */
export function answerPageJson(res: Response, pageJson: Uint8Array, nextCursor: string): void {
  if (nextCursor) res.setHeader(NEXT_CURSOR_HEADER, nextCursor);
  res.status(200).setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', pageJson.byteLength);
  res.end(pageJson);
}

/** A list query's filters every list shares. */
interface ListWindowQuery {
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

/**
 * The creation-time window and the page of a list query, as the list RPCs take
 * them: limit 0 asks for the service's default page size, cursor '' for the first page.
 */
export function listWindow(query: ListWindowQuery): { from?: string; to?: string; limit: number; cursor: string } {
  return { from: query.from, to: query.to, limit: query.limit ?? 0, cursor: query.cursor ?? '' };
}
