import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import type { payouts } from '@platform/proto';
import type { Confirmation } from '../domain/confirmation-code';
import { maskAccountNumber } from '../domain/ids';
import type { ConfirmationsRepository } from '../persistence/confirmations.repository';
import type { TransferRecord, TransfersRepository } from '../persistence/transfers.repository';
import type { ConfirmUseCase } from '../usecases/confirm/confirm.usecase';
import type { CreateTransferUseCase } from '../usecases/create-transfer/create-transfer.usecase';
import type { ListTransfersUseCase } from '../usecases/list-transfers/list-transfers.usecase';
import type { ResendConfirmationUseCase } from '../usecases/resend-confirmation/resend-confirmation.usecase';

const iso = (value: Date | null): string | undefined => (value ? new Date(value).toISOString() : undefined);

export function toHandle(confirmation: Confirmation): payouts.ConfirmationHandle {
  return {
    id: confirmation.confirmationId,
    channel: 'email',
    deliveredTo: confirmation.deliveredTo,
    expiresAt: new Date(confirmation.expiresAt).toISOString(),
    resendAvailableAt: new Date(confirmation.resendAvailableAt).toISOString(),
  };
}

function toTransfer(row: TransferRecord, confirmation: Confirmation): payouts.Transfer {
  return {
    id: row.transferId,
    status: row.status,
    rail: row.rail,
    amountValue: row.amountKes,
    feeValue: row.feeKes,
    accountNumberMasked: maskAccountNumber(row.accountNumber),
    accountName: row.accountName,
    bankCode: row.bankCode ?? undefined,
    nameVerification: row.nameVerification,
    verifiedAccountName: row.verifiedAccountName ?? undefined,
    partnerReference: row.partnerReference,
    failureCode: row.failureCode ?? undefined,
    createdAt: new Date(row.createdAt).toISOString(),
    confirmedAt: iso(row.confirmedAt),
    settledAt: iso(row.settledAt),
    confirmation: toHandle(confirmation),
    idempotencyKey: row.idempotencyKey,
  };
}

/** Transfers: translation only. */
export function transfersHandlers(deps: {
  dataSource: DataSource;
  transfers: TransfersRepository;
  confirmations: ConfirmationsRepository;
  createTransfer: CreateTransferUseCase;
  confirm: ConfirmUseCase;
  resend: ResendConfirmationUseCase;
  listTransfers: ListTransfersUseCase;
}): AsyncImplementation<typeof payouts.TransfersService> {
  const present = async (row: TransferRecord): Promise<payouts.Transfer> => {
    const confirmation = row.confirmationId
      ? await deps.confirmations.find(deps.dataSource.manager, row.confirmationId)
      : null;
    if (!confirmation) throw new Error(`transfer ${row.transferId} is visible without its confirmation`);
    return toTransfer(row, confirmation);
  };
  return {
    async createTransfer(request) {
      const result = await deps.createTransfer.execute({
        partnerId: request.partnerId,
        rail: request.rail,
        accountNumber: request.accountNumber,
        accountName: request.accountName,
        bankCode: request.bankCode,
        amountCurrency: request.amountCurrency,
        amountValue: request.amountValue,
        idempotencyKey: request.idempotencyKey,
        partnerReference: request.partnerReference,
      });
      return { transfer: await present(result.transfer), replayed: result.replayed };
    },
    async getTransfer(request) {
      const row =
        isUuid(request.transferId) && isUuid(request.partnerId)
          ? await deps.transfers.find(deps.dataSource.manager, request.partnerId, request.transferId)
          : null;
      // A create still running its checks is not visible yet.
      if (!row || row.status === 'creating') throw new AppError('TRANSFER_NOT_FOUND');
      return present(row);
    },
    async confirm(request) {
      return deps.confirm.execute({
        partnerId: request.partnerId,
        confirmationId: request.confirmationId,
        code: request.code,
      });
    },
    async resendConfirmation(request) {
      return toHandle(
        await deps.resend.execute({ partnerId: request.partnerId, confirmationId: request.confirmationId }),
      );
    },
    async listTransfers(request) {
      const { transfers, nextCursor } = await deps.listTransfers.execute(request);
      return {
        transfers: transfers.map(({ transfer, confirmation }) => toTransfer(transfer, confirmation)),
        nextCursor,
      };
    },
  };
}
