/**
 * USD collections (scope collections for POST, read for GET). Creation is
 * idempotent on partnerReference: the same body again → 200 with the original
 * and `Idempotent-Replayed: true`; another body → 409 IDEMPOTENCY_KEY_REUSED.
 * The list is a bare array, newest first; pagination is additive (`limit`,
 * `cursor`; the next page's cursor in the `X-Next-Cursor` header, absent on the
 * last page).
 */
import { AppError } from '@platform/errors';
import type { collections } from '@platform/proto';
import type { CollectionsApi } from '../dependencies';
import { answerPage, listWindow } from '../paging';
import type { OperationHandler } from './operation';

/** The collection as partners see it: spec fields first, additive ones after; amounts null until received. */
export function presentCollection(collection: collections.Collection) {
  const instructions = collection.depositInstructions;
  return {
    id: collection.id,
    reference: collection.reference,
    status: collection.status,
    currency: collection.currency,
    depositInstructions: instructions
      ? {
          beneficiaryName: instructions.beneficiaryName,
          bankName: instructions.bankName,
          routingNumber: instructions.routingNumber,
          accountNumber: `****${instructions.accountNumber.slice(-4)}`,
          rails: instructions.rails,
          depositMessage: instructions.depositMessage,
        }
      : null,
    // Fee terms are integers of at most 1,000,000,000 minor units (collections enforces it), exact as JSON numbers.
    fee: collection.fee
      ? {
          percentBps: collection.fee.percentBps,
          flatMinor: Number(collection.fee.flatMinor),
          capMinor: Number(collection.fee.capMinor),
          currency: collection.fee.currency,
        }
      : null,
    expectedAmount: collection.expectedAmount ?? null,
    grossAmount: collection.grossAmount ?? null,
    feeAmount: collection.feeAmount ?? null,
    netAmount: collection.netAmount ?? null,
    createdAt: collection.createdAt,
    partnerReference: collection.partnerReference,
    payerLabel: collection.payerLabel,
    amountMismatch: collection.amountMismatch ?? null,
    senderName: collection.senderName ?? null,
    refundReason: collection.refundReason ?? null,
    treasuryCreditTxId: collection.treasuryCreditTxId ?? null,
    expiresAt: collection.expiresAt,
  };
}

/** POST /v1/collections → 201 a new collection, 200 the original on a repeat. */
export function createCollectionHandler(deps: {
  collections: Pick<CollectionsApi, 'createCollection'>;
}): OperationHandler<'createCollection'> {
  return async ({ partnerId, body }, res) => {
    const result = await deps.collections.createCollection({
      partnerId,
      currency: body.currency,
      partnerReference: body.partnerReference,
      payerLabel: body.payerLabel,
      expectedAmount: body.expectedAmount,
    });
    if (!result.collection) throw new AppError('INTERNAL_ERROR');
    if (!result.created) res.setHeader('Idempotent-Replayed', 'true');
    res.status(result.created ? 201 : 200).json(presentCollection(result.collection));
  };
}

/** GET /v1/collections → 200 the partner's collections, newest first. */
export function listCollectionsHandler(deps: {
  collections: Pick<CollectionsApi, 'listCollections'>;
}): OperationHandler<'listCollections'> {
  return async ({ partnerId, query }, res) => {
    const result = await deps.collections.listCollections({
      partnerId,
      reference: query.reference,
      status: query.status,
      ...listWindow(query),
    });
    answerPage(res, result.collections.map(presentCollection), result.nextCursor);
  };
}

/** GET /v1/collections/{id} → 200; unknown, malformed or foreign → 404 COLLECTION_NOT_FOUND. */
export function getCollectionHandler(deps: {
  collections: Pick<CollectionsApi, 'getCollection'>;
}): OperationHandler<'getCollection'> {
  return async ({ partnerId, params }, res) => {
    const collection = await deps.collections.getCollection({ partnerId, collectionId: params.id });
    res.status(200).json(presentCollection(collection));
  };
}

/**
 * POST /v1/sandbox/collections/{id}/deposits {amount, senderName?, depositId?}
 * → 201 the deposit (200 when depositId repeats a known one), with the
 * collection as it stands after the deposit.
 */
export function sandboxCollectionDepositHandler(deps: {
  collections: Pick<CollectionsApi, 'simulateDeposit'>;
}): OperationHandler<'sandboxCollectionDeposit'> {
  return async ({ partnerId, params, body }, res) => {
    const result = await deps.collections.simulateDeposit({
      partnerId,
      collectionId: params.id,
      amount: body.amount,
      senderName: body.senderName,
      depositId: body.depositId ?? '',
    });
    if (!result.deposit || !result.collection) throw new AppError('INTERNAL_ERROR');
    res.status(result.created ? 201 : 200).json({
      depositId: result.deposit.depositId,
      collectionId: result.deposit.collectionId,
      amount: result.deposit.amount,
      currency: 'USD',
      senderName: result.deposit.senderName ?? null,
      disposition: result.deposit.disposition,
      refundReason: result.deposit.refundReason ?? null,
      receivedAt: result.deposit.receivedAt,
      collection: presentCollection(result.collection),
    });
  };
}

/** POST /v1/sandbox/collections/{id}/expire → 200: the sandbox clock ends an open collection's lifetime now. */
export function sandboxExpireCollectionHandler(deps: {
  collections: Pick<CollectionsApi, 'expireNow'>;
}): OperationHandler<'sandboxExpireCollection'> {
  return async ({ partnerId, params }, res) => {
    const collection = await deps.collections.expireNow({ partnerId, collectionId: params.id });
    res.status(200).json(presentCollection(collection));
  };
}
