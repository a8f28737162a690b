import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import type { payoutsFunding } from '@platform/proto';
import type { PushRecord } from '../persistence/mobile-money-pushes.repository';
import type { AnswerMobileMoneyPushUseCase } from '../usecases/funding/answer-mobile-money-push.usecase';
import type { CreateMobileMoneyPushUseCase } from '../usecases/funding/create-mobile-money-push.usecase';
import type { ListMobileMoneyPushesUseCase } from '../usecases/funding/list-mobile-money-pushes.usecase';
import { maskAccountNumber } from '../domain/ids';

function toMessage(row: PushRecord): payoutsFunding.MobileMoneyPush {
  return {
    pushId: row.pushId,
    partnerId: row.partnerId,
    status: row.status,
    amountKes: row.amountKes,
    createdAt: new Date(row.createdAt).toISOString(),
    expiresAt: new Date(row.expiresAt).toISOString(),
    answeredAt: row.answeredAt ? new Date(row.answeredAt).toISOString() : undefined,
    creditTransactionId: row.creditTransactionId ?? undefined,
    phoneMasked: maskAccountNumber(row.msisdn),
  };
}

/** MobileMoneyFunding: translation only. */
export function mobileMoneyFundingHandlers(deps: {
  createPush: CreateMobileMoneyPushUseCase;
  listPushes: ListMobileMoneyPushesUseCase;
}): AsyncImplementation<typeof payoutsFunding.MobileMoneyFundingService> {
  return {
    async createMobileMoneyPush(request) {
      return toMessage(
        await deps.createPush.execute({
          partnerId: request.partnerId,
          phone: request.phone,
          amountKes: request.amountKes,
        }),
      );
    },
    async listMobileMoneyPushes(request) {
      const { pushes, nextCursor } = await deps.listPushes.execute(request);
      return { pushes: pushes.map(toMessage), nextCursor };
    },
  };
}

/** MobileMoneyFundingSandbox: translation only; every call is NOT_FOUND outside sandbox mode. */
export function mobileMoneyFundingSandboxHandlers(deps: {
  answerPush: AnswerMobileMoneyPushUseCase | null;
}): AsyncImplementation<typeof payoutsFunding.MobileMoneyFundingSandboxService> {
  const answer = async (request: payoutsFunding.AnswerMobileMoneyPushRequest, kind: 'approve' | 'decline') => {
    if (!deps.answerPush) throw new AppError('NOT_FOUND');
    return toMessage(
      await deps.answerPush.execute({ partnerId: request.partnerId, pushId: request.pushId, answer: kind }),
    );
  };
  return {
    async approveMobileMoneyPush(request) {
      return answer(request, 'approve');
    },
    async declineMobileMoneyPush(request) {
      return answer(request, 'decline');
    },
  };
}
