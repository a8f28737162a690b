import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import type { payouts } from '@platform/proto';
import type { ConfirmationsRepository } from '../persistence/confirmations.repository';
import type { UsdtSendRecord, UsdtSendsRepository } from '../persistence/usdt-sends.repository';
import type { Confirmation } from '../domain/confirmation-code';
import type { CreateUsdtSendUseCase } from '../usecases/create-usdt-send/create-usdt-send.usecase';
import type { ListUsdtSendsUseCase } from '../usecases/list-usdt-sends/list-usdt-sends.usecase';
import { toHandle } from './transfers.handlers';

const iso = (value: Date | null): string | undefined => (value ? new Date(value).toISOString() : undefined);

/** A send as the partner sees it, with its confirmation. */
function toUsdtSend(row: UsdtSendRecord, confirmation: Confirmation): payouts.UsdtSend {
  return {
    id: row.sendId,
    status: row.status,
    destinationWalletId: row.destinationWalletId,
    usdtAmount: row.usdtAmount,
    partnerReference: row.partnerReference,
    failureReason: row.failureReason ?? undefined,
    createdAt: new Date(row.createdAt).toISOString(),
    confirmedAt: iso(row.confirmedAt),
    settledAt: iso(row.settledAt),
    confirmation: toHandle(confirmation),
    idempotencyKey: row.idempotencyKey,
  };
}

/** UsdtSends: translation only. */
export function usdtSendsHandlers(deps: {
  dataSource: DataSource;
  sends: UsdtSendsRepository;
  confirmations: ConfirmationsRepository;
  createUsdtSend: CreateUsdtSendUseCase;
  listSends: ListUsdtSendsUseCase;
}): AsyncImplementation<typeof payouts.UsdtSendsService> {
  const present = async (row: UsdtSendRecord): Promise<payouts.UsdtSend> => {
    const confirmation = row.confirmationId
      ? await deps.confirmations.find(deps.dataSource.manager, row.confirmationId)
      : null;
    if (!confirmation) throw new Error(`usdt send ${row.sendId} is visible without its confirmation`);
    return toUsdtSend(row, confirmation);
  };
  return {
    async createUsdtSend(request) {
      const result = await deps.createUsdtSend.execute({
        partnerId: request.partnerId,
        destinationWalletId: request.destinationWalletId,
        usdtAmount: request.usdtAmount,
        idempotencyKey: request.idempotencyKey,
        partnerReference: request.partnerReference,
      });
      return { send: await present(result.send), replayed: result.replayed };
    },
    async getUsdtSend(request) {
      const row =
        isUuid(request.sendId) && isUuid(request.partnerId)
          ? await deps.sends.find(deps.dataSource.manager, request.partnerId, request.sendId)
          : null;
      if (!row || row.status === 'creating') throw new AppError('SEND_NOT_FOUND');
      return present(row);
    },
    async listUsdtSends(request) {
      const { sends, nextCursor } = await deps.listSends.execute(request);
      return { sends: sends.map(({ send, confirmation }) => toUsdtSend(send, confirmation)), nextCursor };
    },
  };
}
