/**
 * A page of the partner's own transfers (batch items included), newest first,
 * filtered by status, partnerReference, idempotencyKey and a creation-time
 * window [from, to), each with its confirmation. The gateway checks the query's
 * shape; this checks it again, naming every bad parameter.
 */
import { validationFailed } from '@platform/errors';
import { pageOf, readPageBounds } from '@platform/persistence';
import type { DataSource } from '@platform/persistence';
import type { Confirmation } from '../../domain/confirmation-code';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import {
  TransferRecord, TransfersRepository, VISIBLE_TRANSFER_STATUSES, VisibleTransferStatus,
} from '../../persistence/transfers.repository';

/** Longest partnerReference or idempotencyKey a transfer can hold: longer cannot match, so it is refused. */
const KEY_LENGTH_MAX = 128;

export interface ListTransfersQuery {
  partnerId: string;
  status?: string;
  from?: string;
  to?: string;
  partnerReference?: string;
  idempotencyKey?: string;
  limit: number;
  cursor: string;
}

export interface ListedTransferWithConfirmation {
  transfer: TransferRecord;
  confirmation: Confirmation;
}

function isVisibleStatus(value: string): value is VisibleTransferStatus {
  return (VISIBLE_TRANSFER_STATUSES as readonly string[]).includes(value);
}

function checkKey(value: string | undefined, name: string, bad: string[]): void {
  if (value !== undefined && (value.length === 0 || value.length > KEY_LENGTH_MAX)) bad.push(name);
}

export class ListTransfersUseCase {
  constructor(private readonly deps: { dataSource: DataSource; transfers: TransfersRepository; confirmations: ConfirmationsRepository }) {}

  async execute(query: ListTransfersQuery): Promise<{ transfers: ListedTransferWithConfirmation[]; nextCursor: string }> {
    const bad: string[] = [];
    if (query.status !== undefined && !isVisibleStatus(query.status)) bad.push('status');
    checkKey(query.partnerReference, 'partnerReference', bad);
    checkKey(query.idempotencyKey, 'idempotencyKey', bad);
    const page = readPageBounds(query, bad);
    if (bad.length > 0) throw validationFailed(bad);
    const manager = this.deps.dataSource.manager;
    const rows = await this.deps.transfers.listPage(manager, {
      partnerId: query.partnerId,
      status: (query.status as VisibleTransferStatus | undefined) ?? null,
      partnerReference: query.partnerReference ?? null,
      idempotencyKey: query.idempotencyKey ?? null,
      page,
    });
    const { page: listed, nextCursor } = pageOf(rows, page, (row) => ({ createdAt: row.createdAtExact, id: row.transferId }));
    const confirmationIds = listed.map((row) => row.confirmationId).filter((id): id is string => id !== null);
    const confirmations = new Map((await this.deps.confirmations.findMany(manager, confirmationIds)).map((found) => [found.confirmationId, found]));
    const transfers = listed.map(({ createdAtExact: _position, ...transfer }) => {
      const confirmation = transfer.confirmationId ? confirmations.get(transfer.confirmationId) : undefined;
      // Past 'creating' a transfer always has its confirmation: without one it would be shown half-made.
      if (!confirmation) throw new Error(`transfer ${transfer.transferId} is visible without its confirmation`);
      return { transfer, confirmation };
    });
    return { transfers, nextCursor };
  }
}
