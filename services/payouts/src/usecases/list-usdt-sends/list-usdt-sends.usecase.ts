/**
 * A page of the partner's own USDT sends, newest first, filtered by status,
 * partnerReference, idempotencyKey and a creation-time window [from, to), each
 * with its confirmation (usecases/shared/list-confirmed-page.ts).
 */
import type { DataSource } from '@platform/persistence';
import type { Confirmation } from '../../domain/confirmation-code';
import { VISIBLE_STATUSES, VisibleStatus } from '../../domain/confirmable-status';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import { ListedUsdtSend, UsdtSendRecord, UsdtSendsRepository } from '../../persistence/usdt-sends.repository';
import { ConfirmedPayoutList, ConfirmedPayoutListQuery, listConfirmedPage } from '../shared/list-confirmed-page';

export type ListUsdtSendsQuery = ConfirmedPayoutListQuery;

export interface ListedUsdtSendWithConfirmation {
  send: UsdtSendRecord;
  confirmation: Confirmation;
}

export class ListUsdtSendsUseCase {
  private readonly list: ConfirmedPayoutList<VisibleStatus, ListedUsdtSend>;

  constructor(
    private readonly deps: {
      dataSource: DataSource;
      sends: UsdtSendsRepository;
      confirmations: ConfirmationsRepository;
    },
  ) {
    this.list = {
      kind: 'usdt send',
      statuses: VISIBLE_STATUSES,
      idOf: (row) => row.sendId,
      listPage: (manager, filter) => deps.sends.listPage(manager, filter),
    };
  }

  async execute(query: ListUsdtSendsQuery): Promise<{ sends: ListedUsdtSendWithConfirmation[]; nextCursor: string }> {
    const { items, nextCursor } = await listConfirmedPage(this.deps, this.list, query);
    return { sends: items.map(({ record, confirmation }) => ({ send: record, confirmation })), nextCursor };
  }
}
