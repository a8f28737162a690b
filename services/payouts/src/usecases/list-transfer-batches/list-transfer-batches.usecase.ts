/**
 * A page of the partner's own transfer batches, newest first, filtered by
 * status (derived from the batch's confirmation and transfers, as GET
 * /v1/transfers/batch/{id} shows it), idempotencyKey and a creation-time window
 * [from, to). Answers the batch records; the handler presents each one as the
 * single read does. Every bad parameter is named.
 */
import { validationFailed } from '@platform/errors';
import { pageOf, readPageBounds } from '@platform/persistence';
import type { DataSource } from '@platform/persistence';
import { PARTNER_REFERENCE_LENGTH_MAX } from '../../domain/transfer-request';
import {
  BATCH_STATUSES,
  BatchStatus,
  TransferBatchesRepository,
  TransferBatchRecord,
} from '../../persistence/transfer-batches.repository';

export interface ListTransferBatchesQuery {
  partnerId: string;
  status?: string;
  from?: string;
  to?: string;
  idempotencyKey?: string;
  limit: number;
  cursor: string;
}

function isBatchStatus(value: string): value is BatchStatus {
  return (BATCH_STATUSES as readonly string[]).includes(value);
}

export class ListTransferBatchesUseCase {
  constructor(private readonly deps: { dataSource: DataSource; batches: TransferBatchesRepository }) {}

  async execute(query: ListTransferBatchesQuery): Promise<{ batches: TransferBatchRecord[]; nextCursor: string }> {
    const bad: string[] = [];
    if (query.status !== undefined && !isBatchStatus(query.status)) bad.push('status');
    const key = query.idempotencyKey;
    // A key longer than a batch can hold cannot match, so it is refused rather than answered empty.
    if (key !== undefined && (key.length === 0 || key.length > PARTNER_REFERENCE_LENGTH_MAX))
      bad.push('idempotencyKey');
    const page = readPageBounds(query, bad);
    if (bad.length > 0) throw validationFailed(bad);
    const rows = await this.deps.batches.listPage(this.deps.dataSource.manager, {
      partnerId: query.partnerId,
      status: (query.status as BatchStatus | undefined) ?? null,
      idempotencyKey: key ?? null,
      page,
    });
    const { page: listed, nextCursor } = pageOf(rows, page, (row) => ({
      createdAt: row.createdAtExact,
      id: row.batchId,
    }));
    return { batches: listed.map(({ createdAtExact: _position, ...batch }) => batch), nextCursor };
  }
}
