/**
 * A collection and its state machine. States, as partners see them:
 *
 * | from       | to        | when |
 * |------------|-----------|------|
 * | open       | received  | the rails report the deposit and the fee leaves a positive net |
 * | open       | refunded  | the rails return the deposit, or the fee would take all of it |
 * | open       | expired   | the lifetime passes with no deposit |
 * | received   | crediting | the step driver claims it to post the ledger entry |
 * | crediting  | credited  | the ledger entry is posted; collection.received is enqueued in the same transaction |
 *
 * credited, refunded and expired are terminal. A deposit for a collection that
 * is not open is returned to the payer and changes nothing here.
 */
// The partner contract states the statuses; the transitions between them are collections' own.
import { COLLECTION_STATUSES, type CollectionStatus } from '@platform/openapi/dist/contract/statuses';

export { COLLECTION_STATUSES, type CollectionStatus };

export const REFUND_REASONS = [
  'returned_by_rails',
  'fee_exceeds_amount',
  'collection_expired',
  'collection_not_open',
] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

const TRANSITIONS: Readonly<Record<CollectionStatus, readonly CollectionStatus[]>> = {
  open: ['received', 'refunded', 'expired'],
  received: ['crediting'],
  crediting: ['credited'],
  credited: [],
  refunded: [],
  expired: [],
};

export function isCollectionStatus(value: unknown): value is CollectionStatus {
  return typeof value === 'string' && (COLLECTION_STATUSES as readonly string[]).includes(value);
}

export function canTransition(from: CollectionStatus, to: CollectionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** An impossible transition is a bug: it stops the work rather than corrupt state. */
export function assertTransition(from: CollectionStatus, to: CollectionStatus): void {
  if (!canTransition(from, to)) throw new Error(`collection transition ${from} → ${to} is not allowed`);
}

export interface CollectionRecord {
  id: string;
  partnerId: string;
  reference: string;
  partnerReference: string;
  requestHash: string;
  payerLabel: string;
  currency: 'USD';
  status: CollectionStatus;
  accountNumber: string;
  feePercentBps: number;
  feeFlatMinor: bigint;
  feeCapMinor: bigint;
  expectedAmount: string | null;
  grossAmount: string | null;
  feeAmount: string | null;
  netAmount: string | null;
  amountMismatch: boolean | null;
  senderName: string | null;
  depositId: string | null;
  creditEntryId: string | null;
  refundReason: RefundReason | null;
  createdAt: Date;
  expiresAt: Date;
}
