/** Domain records → proto messages. The account number leaves in full; the gateway masks it. */
import { collections } from '@platform/proto';
import type { UsdRails } from '../adapters/usd-rails.adapter';
import type { CollectionRecord } from '../domain/collection';
import type { FeeTerms } from '../domain/collection-fee';
import type { DepositRecord } from '../persistence/deposits.repository';

export function toProtoFee(terms: FeeTerms): collections.FeeTerms {
  return {
    percentBps: terms.percentBps,
    flatMinor: terms.flatMinor.toString(),
    capMinor: terms.capMinor.toString(),
    currency: 'USD',
  };
}

const optional = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

export function toProtoCollection(record: CollectionRecord, rails: UsdRails): collections.Collection {
  return {
    id: record.id,
    partnerId: record.partnerId,
    reference: record.reference,
    status: record.status,
    currency: record.currency,
    partnerReference: record.partnerReference,
    payerLabel: record.payerLabel,
    depositInstructions: rails.instructionsFor(record.reference, record.accountNumber),
    fee: toProtoFee({ percentBps: record.feePercentBps, flatMinor: record.feeFlatMinor, capMinor: record.feeCapMinor }),
    expectedAmount: optional(record.expectedAmount),
    grossAmount: optional(record.grossAmount),
    feeAmount: optional(record.feeAmount),
    netAmount: optional(record.netAmount),
    amountMismatch: optional(record.amountMismatch),
    senderName: optional(record.senderName),
    treasuryCreditTxId: record.status === 'credited' ? optional(record.creditEntryId) : undefined,
    refundReason: optional(record.refundReason),
    createdAt: record.createdAt.toISOString(),
    expiresAt: record.expiresAt.toISOString(),
  };
}

export function toProtoDeposit(deposit: DepositRecord): collections.Deposit {
  return {
    depositId: deposit.depositId,
    collectionId: deposit.collectionId,
    amount: deposit.amount,
    senderName: optional(deposit.senderName),
    disposition: deposit.disposition,
    refundReason: optional(deposit.refundReason),
    receivedAt: deposit.receivedAt.toISOString(),
  };
}
