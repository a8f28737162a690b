/**
 * A page of the partner's own transfers (batch items included), newest first,
 * filtered by status, partnerReference, idempotencyKey and a creation-time
 * window [from, to), each with its confirmation (usecases/shared/list-confirmed-page.ts).
 */
import type { DataSource } from '@platform/persistence';
import type { Confirmation } from '../../domain/confirmation-code';
import { VISIBLE_STATUSES, VisibleStatus } from '../../domain/confirmable-status';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import { ListedTransfer, TransferRecord, TransfersRepository } from '../../persistence/transfers.repository';
import { ConfirmedPayoutList, ConfirmedPayoutListQuery, listConfirmedPage } from '../shared/list-confirmed-page';

export type ListTransfersQuery = ConfirmedPayoutListQuery;

export interface ListedTransferWithConfirmation {
  transfer: TransferRecord;
  confirmation: Confirmation;
}

export class ListTransfersUseCase {
  private readonly list: ConfirmedPayoutList<VisibleStatus, ListedTransfer>;

  constructor(
    private readonly deps: {
      dataSource: DataSource;
      transfers: TransfersRepository;
      confirmations: ConfirmationsRepository;
    },
  ) {
    this.list = {
      kind: 'transfer',
      statuses: VISIBLE_STATUSES,
      idOf: (row) => row.transferId,
      listPage: (manager, filter) => deps.transfers.listPage(manager, filter),
    };
  }

  async execute(
    query: ListTransfersQuery,
  ): Promise<{ transfers: ListedTransferWithConfirmation[]; nextCursor: string }> {
    const { items, nextCursor } = await listConfirmedPage(this.deps, this.list, query);
    return { transfers: items.map(({ record, confirmation }) => ({ transfer: record, confirmation })), nextCursor };
  }
}
