/**
 * The partner's collections, newest first, filtered by reference, status and
 * a creation-time window [from, to). Keyset pages of 1..100 (default 50);
 * the next cursor is empty on the last page. The gateway validates the query
 * shape; this checks it again, naming each bad parameter.
 */
import { validationFailed } from '@platform/errors';
import { pageOf, readPageBounds } from '@platform/persistence';
import type { DataSource } from '@platform/persistence';
import { CollectionRecord, CollectionStatus, isCollectionStatus } from '../../domain/collection';
import { normaliseCollectionReference } from '../../domain/collection-reference';
import type { CollectionsRepository } from '../../persistence/collections.repository';

export interface ListCollectionsQuery {
  partnerId: string;
  reference?: string;
  status?: string;
  from?: string;
  to?: string;
  limit: number;
  cursor: string;
}

export class ListCollectionsUseCase {
  constructor(private readonly deps: { dataSource: DataSource; collections: CollectionsRepository }) {}

  async execute(query: ListCollectionsQuery): Promise<{ collections: CollectionRecord[]; nextCursor: string }> {
    const bad: string[] = [];
    const reference = query.reference === undefined ? null : normaliseCollectionReference(query.reference);
    if (query.reference !== undefined && reference === null) bad.push('reference');
    if (query.status !== undefined && !isCollectionStatus(query.status)) bad.push('status');
    const page = readPageBounds(query, bad);
    if (bad.length > 0) throw validationFailed(bad);
    const rows = await this.deps.collections.list(this.deps.dataSource.manager, {
      partnerId: query.partnerId,
      reference,
      status: (query.status as CollectionStatus | undefined) ?? null,
      page,
    });
    // Collections are stamped in milliseconds by this service, so the ISO form is their exact position.
    const { page: collections, nextCursor } = pageOf(rows, page, (row) => ({
      createdAt: row.createdAt.toISOString(),
      id: row.id,
    }));
    return { collections, nextCursor };
  }
}
