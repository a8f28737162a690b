/**
 * A page of a partner's own payouts that carry a confirmation (transfers, USDT
 * sends), newest first, filtered by status, partnerReference, idempotencyKey
 * and a creation-time window [from, to), each with its confirmation read in
 * one query. The gateway checks the query's shape; this checks it again,
 * naming every bad parameter. One shape for every such list: each use case
 * says only which statuses it shows and how its rows are read.
 */
import { validationFailed } from '@platform/errors';
import { pageOf, readPageBounds } from '@platform/persistence';
import type { DataSource, EntityManager, PageBounds } from '@platform/persistence';
import type { Confirmation } from '../../domain/confirmation-code';
import { PARTNER_REFERENCE_LENGTH_MAX } from '../../domain/transfer-request';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';

export interface ConfirmedPayoutListQuery {
  partnerId: string;
  status?: string;
  from?: string;
  to?: string;
  partnerReference?: string;
  idempotencyKey?: string;
  limit: number;
  cursor: string;
}

export interface ConfirmedPayoutFilter<S extends string> {
  partnerId: string;
  status: S | null;
  partnerReference: string | null;
  idempotencyKey: string | null;
  page: PageBounds;
}

/** A listed row: the record, its exact position in the listing and its confirmation's id. */
export type ListedRow = { createdAtExact: string; confirmationId: string | null };

export interface ConfirmedPayoutList<S extends string, R extends ListedRow> {
  /** What the list is of, for the invariant's message ("transfer", "usdt send"). */
  kind: string;
  statuses: readonly S[];
  idOf(row: R): string;
  listPage(manager: EntityManager, filter: ConfirmedPayoutFilter<S>): Promise<R[]>;
}

/** Longer than a payout can hold cannot match, so it is refused rather than answered empty. */
function checkKey(value: string | undefined, name: string, bad: string[]): void {
  if (value !== undefined && (value.length === 0 || value.length > PARTNER_REFERENCE_LENGTH_MAX)) bad.push(name);
}

export async function listConfirmedPage<S extends string, R extends ListedRow>(
  deps: { dataSource: DataSource; confirmations: ConfirmationsRepository },
  list: ConfirmedPayoutList<S, R>,
  query: ConfirmedPayoutListQuery,
): Promise<{ items: { record: Omit<R, 'createdAtExact'>; confirmation: Confirmation }[]; nextCursor: string }> {
  const bad: string[] = [];
  const status = query.status === undefined ? null : list.statuses.find((known) => known === query.status);
  if (status === undefined) bad.push('status');
  checkKey(query.partnerReference, 'partnerReference', bad);
  checkKey(query.idempotencyKey, 'idempotencyKey', bad);
  const page = readPageBounds(query, bad);
  if (bad.length > 0) throw validationFailed(bad);
  const manager = deps.dataSource.manager;
  const rows = await list.listPage(manager, {
    partnerId: query.partnerId,
    status: status ?? null,
    partnerReference: query.partnerReference ?? null,
    idempotencyKey: query.idempotencyKey ?? null,
    page,
  });
  const { page: listed, nextCursor } = pageOf(rows, page, (row) => ({
    createdAt: row.createdAtExact,
    id: list.idOf(row),
  }));
  const confirmationIds = listed.map((row) => row.confirmationId).filter((id): id is string => id !== null);
  const confirmations = new Map(
    (await deps.confirmations.findMany(manager, confirmationIds)).map((found) => [found.confirmationId, found]),
  );
  const items = listed.map((row) => {
    const { createdAtExact: _position, ...record } = row;
    const confirmation = row.confirmationId ? confirmations.get(row.confirmationId) : undefined;
    // Past 'creating' a payout always has its confirmation: without one it would be shown half-made.
    if (!confirmation) throw new Error(`${list.kind} ${list.idOf(row)} is visible without its confirmation`);
    return { record, confirmation };
  });
  return { items, nextCursor };
}
