import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import type { payouts } from '@platform/proto';
import { isFinal } from '../domain/confirmable-status';
import type { Confirmation } from '../domain/confirmation-code';
import type { ConfirmationsRepository } from '../persistence/confirmations.repository';
import type {
  BatchStatus,
  TransferBatchesRepository,
  TransferBatchRecord,
} from '../persistence/transfer-batches.repository';
import type { TransferRecord, TransfersRepository } from '../persistence/transfers.repository';
import type { CreateTransferBatchUseCase } from '../usecases/create-transfer-batch/create-transfer-batch.usecase';
import type { ListTransferBatchesUseCase } from '../usecases/list-transfer-batches/list-transfer-batches.usecase';
import { toHandle } from './transfers.handlers';

/** The batch's status, from its confirmation and its transfers (partners otherwise see only awaiting_confirmation). */
export function batchStatus(confirmation: Confirmation | null, transfers: TransferRecord[]): BatchStatus {
  if (!confirmation) return 'failed';
  if (confirmation.status === 'used')
    return transfers.every((transfer) => isFinal(transfer.status)) ? 'completed' : 'confirmed';
  if (confirmation.status === 'expired' || transfers.every((transfer) => transfer.status === 'expired'))
    return 'expired';
  return 'awaiting_confirmation';
}

/** TransferBatches: translation only. */
export function transferBatchesHandlers(deps: {
  dataSource: DataSource;
  batches: TransferBatchesRepository;
  transfers: TransfersRepository;
  confirmations: ConfirmationsRepository;
  createBatch: CreateTransferBatchUseCase;
  listBatches: ListTransferBatchesUseCase;
}): AsyncImplementation<typeof payouts.TransferBatchesService> {
  const present = async (batch: TransferBatchRecord): Promise<payouts.TransferBatch> => {
    const { manager } = deps.dataSource;
    const items = await deps.batches.items(manager, batch.batchId);
    const transfers = await deps.transfers.listByBatch(manager, batch.batchId);
    const confirmation = batch.confirmationId ? await deps.confirmations.find(manager, batch.confirmationId) : null;
    const acceptedCount = items.filter((item) => item.transferId !== null).length;
    return {
      id: batch.batchId,
      status: batchStatus(confirmation, transfers),
      itemCount: items.length,
      acceptedCount,
      failedCount: items.length - acceptedCount,
      items: items.map((item) => ({
        transferId: item.transferId ?? undefined,
        idempotencyKey: item.idempotencyKey,
        accepted: item.transferId !== null,
        failureCode: item.failureCode ?? undefined,
      })),
      createdAt: new Date(batch.createdAt).toISOString(),
      confirmedAt: confirmation?.verifiedAt ? new Date(confirmation.verifiedAt).toISOString() : undefined,
      confirmation: confirmation ? toHandle(confirmation) : undefined,
      idempotencyKey: batch.idempotencyKey,
    };
  };
  return {
    async createTransferBatch(request) {
      const result = await deps.createBatch.execute({
        partnerId: request.partnerId,
        idempotencyKey: request.idempotencyKey,
        items: request.items.map((item) => ({
          rail: item.rail,
          accountNumber: item.accountNumber,
          accountName: item.accountName,
          bankCode: item.bankCode,
          amountCurrency: item.amountCurrency,
          amountValue: item.amountValue,
          idempotencyKey: item.idempotencyKey,
          partnerReference: item.partnerReference,
        })),
      });
      return { batch: await present(result.batch), replayed: result.replayed };
    },
    async getTransferBatch(request) {
      const batch =
        isUuid(request.batchId) && isUuid(request.partnerId)
          ? await deps.batches.find(deps.dataSource.manager, request.partnerId, request.batchId)
          : null;
      if (!batch || batch.status === 'creating') throw new AppError('BATCH_NOT_FOUND');
      return present(batch);
    },
    async listTransferBatches(request) {
      const { batches, nextCursor } = await deps.listBatches.execute(request);
      // Each as the single read presents it (at most 100 batches of at most 20 items a page).
      const presented: payouts.TransferBatch[] = [];
      for (const batch of batches) presented.push(await present(batch));
      return { batches: presented, nextCursor };
    },
  };
}
