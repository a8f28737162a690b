/**
 * A page of the partner's own mobile-money prompts, newest first, filtered by
 * status and a creation-time window [from, to). Prompts carry no
 * idempotencyKey or partnerReference (every call is a new prompt), so there is
 * no filter on either. Every bad parameter is named.
 */
import { validationFailed } from '@platform/errors';
import { pageOf, readPageBounds } from '@platform/persistence';
import { PUSH_STATUSES, PushStatus } from '../../domain/mobile-money-push';
import type { MobileMoneyPushesRepository, PushRecord } from '../../persistence/mobile-money-pushes.repository';

export interface ListMobileMoneyPushesQuery {
  partnerId: string;
  status?: string;
  from?: string;
  to?: string;
  limit: number;
  cursor: string;
}

function isPushStatus(value: string): value is PushStatus {
  return (PUSH_STATUSES as readonly string[]).includes(value);
}

export class ListMobileMoneyPushesUseCase {
  constructor(private readonly deps: { pushes: MobileMoneyPushesRepository }) {}

  async execute(query: ListMobileMoneyPushesQuery): Promise<{ pushes: PushRecord[]; nextCursor: string }> {
    const bad: string[] = [];
    if (query.status !== undefined && !isPushStatus(query.status)) bad.push('status');
    const page = readPageBounds(query, bad);
    if (bad.length > 0) throw validationFailed(bad);
    const rows = await this.deps.pushes.listPage({
      partnerId: query.partnerId,
      status: (query.status as PushStatus | undefined) ?? null,
      page,
    });
    const { page: listed, nextCursor } = pageOf(rows, page, (row) => ({
      createdAt: row.createdAtExact,
      id: row.pushId,
    }));
    return { pushes: listed.map(({ createdAtExact: _position, ...push }) => push), nextCursor };
  }
}
