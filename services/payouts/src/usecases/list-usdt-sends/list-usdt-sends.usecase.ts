/**
 * A page of the partner's own USDT sends, newest first, filtered by status,
 * partnerReference, idempotencyKey and a creation-time window [from, to), each
 * with its confirmation. The gateway checks the query's shape; this checks it
 * again, naming every bad parameter.
 */
import { validationFailed } from '@platform/errors';
import { pageOf, readPageBounds } from '@platform/persistence';
import type { DataSource } from '@platform/persistence';
import type { Confirmation } from '../../domain/confirmation-code';
import { PARTNER_REFERENCE_LENGTH_MAX } from '../../domain/transfer-request';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import {
  UsdtSendRecord, UsdtSendsRepository, VISIBLE_USDT_SEND_STATUSES, VisibleUsdtSendStatus,
} from '../../persistence/usdt-sends.repository';

export interface ListUsdtSendsQuery {
  partnerId: string;
  status?: string;
  from?: string;
  to?: string;
  partnerReference?: string;
  idempotencyKey?: string;
  limit: number;
  cursor: string;
}

export interface ListedUsdtSendWithConfirmation {
  send: UsdtSendRecord;
  confirmation: Confirmation;
}

function isVisibleStatus(value: string): value is VisibleUsdtSendStatus {
  return (VISIBLE_USDT_SEND_STATUSES as readonly string[]).includes(value);
}

/** Longer than a send can hold cannot match, so it is refused rather than answered empty. */
function checkKey(value: string | undefined, name: string, bad: string[]): void {
  if (value !== undefined && (value.length === 0 || value.length > PARTNER_REFERENCE_LENGTH_MAX)) bad.push(name);
}

export class ListUsdtSendsUseCase {
  constructor(private readonly deps: { dataSource: DataSource; sends: UsdtSendsRepository; confirmations: ConfirmationsRepository }) {}

  async execute(query: ListUsdtSendsQuery): Promise<{ sends: ListedUsdtSendWithConfirmation[]; nextCursor: string }> {
    const bad: string[] = [];
    if (query.status !== undefined && !isVisibleStatus(query.status)) bad.push('status');
    checkKey(query.partnerReference, 'partnerReference', bad);
    checkKey(query.idempotencyKey, 'idempotencyKey', bad);
    const page = readPageBounds(query, bad);
    if (bad.length > 0) throw validationFailed(bad);
    const manager = this.deps.dataSource.manager;
    const rows = await this.deps.sends.listPage(manager, {
      partnerId: query.partnerId,
      status: (query.status as VisibleUsdtSendStatus | undefined) ?? null,
      partnerReference: query.partnerReference ?? null,
      idempotencyKey: query.idempotencyKey ?? null,
      page,
    });
    const { page: listed, nextCursor } = pageOf(rows, page, (row) => ({ createdAt: row.createdAtExact, id: row.sendId }));
    const confirmationIds = listed.map((row) => row.confirmationId).filter((id): id is string => id !== null);
    const confirmations = new Map((await this.deps.confirmations.findMany(manager, confirmationIds)).map((found) => [found.confirmationId, found]));
    const sends = listed.map(({ createdAtExact: _position, ...send }) => {
      const confirmation = send.confirmationId ? confirmations.get(send.confirmationId) : undefined;
      // Past 'creating' a send always has its confirmation: without one it would be shown half-made.
      if (!confirmation) throw new Error(`usdt send ${send.sendId} is visible without its confirmation`);
      return { send, confirmation };
    });
    return { sends, nextCursor };
  }
}
