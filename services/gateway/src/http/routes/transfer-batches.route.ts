/**
 * Transfer batches (scope payouts, read for GET): at most 20 items, each
 * shaped as a single transfer request (the payouts service checks the bound
 * again). Create answers 202; a replay of the batch's idempotencyKey and body
 * answers the original batch with 202 and `Idempotent-Replayed: true`.
 */
import type { payouts } from '@platform/proto';
import type { PayoutsApi } from '../dependencies';
import { answerPage, listWindow } from '../paging';
import type { OperationHandler } from './operation';
import { presentHandle, toCreateTransferRequest } from './transfers.route';

export function presentBatch(batch: payouts.TransferBatch) {
  return {
    id: batch.id,
    status: batch.status,
    itemCount: batch.itemCount,
    acceptedCount: batch.acceptedCount,
    failedCount: batch.failedCount,
    items: batch.items.map((item) => ({
      transferId: item.transferId ?? null,
      idempotencyKey: item.idempotencyKey,
      accepted: item.accepted,
      failureCode: item.failureCode ?? null,
    })),
    createdAt: batch.createdAt,
    confirmedAt: batch.confirmedAt ?? null,
    confirmation: batch.confirmation ? presentHandle(batch.confirmation) : null,
    idempotencyKey: batch.idempotencyKey,
  };
}

/** POST /v1/transfers/batch → 202 the batch. */
export function createTransferBatchHandler(deps: {
  payouts: Pick<PayoutsApi, 'createTransferBatch'>;
}): OperationHandler<'createTransferBatch'> {
  return async ({ partnerId, body }, res) => {
    const result = await deps.payouts.createTransferBatch({
      partnerId,
      idempotencyKey: body.idempotencyKey,
      items: body.items.map((item) => toCreateTransferRequest(partnerId, item)),
    });
    if (!result.batch) throw new Error('payouts answered without a batch');
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(202).json(presentBatch(result.batch));
  };
}

/** GET /v1/transfers/batch/{id} → 200 the batch with every item's outcome. */
export function getTransferBatchHandler(deps: {
  payouts: Pick<PayoutsApi, 'getTransferBatch'>;
}): OperationHandler<'getTransferBatch'> {
  return async ({ partnerId, params }, res) => {
    res.status(200).json(presentBatch(await deps.payouts.getTransferBatch({ partnerId, batchId: params.id })));
  };
}

/** GET /v1/transfers/batch → 200 a page of the partner's batches, newest first. */
export function listTransferBatchesHandler(deps: {
  payouts: Pick<PayoutsApi, 'listTransferBatches'>;
}): OperationHandler<'listTransferBatches'> {
  return async ({ partnerId, query }, res) => {
    const result = await deps.payouts.listTransferBatches({
      partnerId,
      status: query.status,
      idempotencyKey: query.idempotencyKey,
      ...listWindow(query),
    });
    answerPage(res, result.batches.map(presentBatch), result.nextCursor);
  };
}
