/**
 * The partner's collections, newest first, filtered by reference, status and
 * a creation-time window [from, to). Keyset pages of 1..100 (default 50);
 * the next cursor is empty on the last page. The gateway validates the query
 * shape; this checks it again, naming each bad parameter.
 */
import { validationFailed } from '@platform/errors';
import type { DataSource } from '@platform/persistence';
import { CollectionRecord, CollectionStatus, isCollectionStatus } from '../../domain/collection';
import { normaliseCollectionReference } from '../../domain/collection-reference';
import { decodeCursor, encodeCursor } from '../../domain/list-cursor';
import type { CollectionsRepository } from '../../persistence/collections.repository';

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 100;

export interface ListCollectionsQuery {
  partnerId: string;
  reference?: string;
  status?: string;
  from?: string;
  to?: string;
  limit: number;
  cursor: string;
}

function parseTime(value: string | undefined, field: string, bad: string[]): Date | null {
  if (value === undefined) return null;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) bad.push(field);
  return time;
}

export class ListCollectionsUseCase {
  constructor(private readonly deps: { dataSource: DataSource; collections: CollectionsRepository }) {}

  async execute(query: ListCollectionsQuery): Promise<{ collections: CollectionRecord[]; nextCursor: string }> {
    const bad: string[] = [];
    const reference = query.reference === undefined ? null : normaliseCollectionReference(query.reference);
    if (query.reference !== undefined && reference === null) bad.push('reference');
    if (query.status !== undefined && !isCollectionStatus(query.status)) bad.push('status');
    const from = parseTime(query.from, 'from', bad);
    const to = parseTime(query.to, 'to', bad);
    const limit = query.limit === 0 ? LIST_LIMIT_DEFAULT : query.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX) bad.push('limit');
    const after = query.cursor === '' ? null : decodeCursor(query.cursor);
    if (query.cursor !== '' && after === null) bad.push('cursor');
    if (bad.length > 0) throw validationFailed(bad);
    // One extra row tells whether another page follows.
    const rows = await this.deps.collections.list(this.deps.dataSource.manager, {
      partnerId: query.partnerId, reference, status: (query.status as CollectionStatus | undefined) ?? null, from, to, after, limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor = rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : '';
    return { collections: page, nextCursor };
  }
}
