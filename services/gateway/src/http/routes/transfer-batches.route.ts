/**
 * Transfer batches (spec sections 2 to 4; scope payouts, read for GET): at
 * most 20 items, each shaped as a single transfer request. Create answers
 * 202; a replay of the batch's idempotencyKey and body answers the original
 * batch with 202 and `Idempotent-Replayed: true`.
 */
import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import type { payouts } from '@platform/proto';
import { z } from 'zod';
import type { PayoutsApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { parseJsonObject, validateBody } from '../validation';
import { isUuidParam } from './path-params';
import { presentHandle, toCreateTransferRequest, transferRequestSchema } from './transfers.route';

/** Bound on items per batch (the payouts service checks it again). */
export const BATCH_ITEMS_MAX = 20;

export const transferBatchRequestSchema = z.object({
  idempotencyKey: z.string().max(200),
  items: z.array(transferRequestSchema).min(1).max(BATCH_ITEMS_MAX),
}).strict();

export function presentBatch(batch: payouts.TransferBatch) {
  return {
    id: batch.id,
    status: batch.status,
    itemCount: batch.itemCount,
    acceptedCount: batch.acceptedCount,
    failedCount: batch.failedCount,
    items: batch.items.map((item) => ({
      transferId: item.transferId ?? null, idempotencyKey: item.idempotencyKey, accepted: item.accepted, failureCode: item.failureCode ?? null,
    })),
    createdAt: batch.createdAt,
    confirmedAt: batch.confirmedAt ?? null,
    confirmation: batch.confirmation ? presentHandle(batch.confirmation) : null,
    idempotencyKey: batch.idempotencyKey,
  };
}

/** POST /v1/transfers/batch → 202 the batch. */
export function createTransferBatchHandler(deps: { payouts: Pick<PayoutsApi, 'createTransferBatch'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(transferBatchRequestSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const partnerId = partnerAuthOf(res).partnerId;
    const result = await deps.payouts.createTransferBatch({
      partnerId, idempotencyKey: body.idempotencyKey, items: body.items.map((item) => toCreateTransferRequest(partnerId, item)),
    });
    if (!result.batch) throw new Error('payouts answered without a batch');
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(202).json(presentBatch(result.batch));
  };
}

/** GET /v1/transfers/batch/{id} → 200 the batch with every item's outcome. */
export function getTransferBatchHandler(deps: { payouts: Pick<PayoutsApi, 'getTransferBatch'> }): RequestHandler {
  return async (req, res) => {
    const batchId = req.params.id;
    if (!isUuidParam(batchId)) throw new AppError('BATCH_NOT_FOUND');
    res.status(200).json(presentBatch(await deps.payouts.getTransferBatch({ partnerId: partnerAuthOf(res).partnerId, batchId })));
  };
}
