/**
 * USDT sends (scope payouts, read for GET). The gateway checks the body's
 * shape; payouts decides its content. Create answers 202; a replay of the same
 * idempotencyKey and body answers the original send with 202 and
 * `Idempotent-Replayed: true`.
 */
import type { payouts } from '@platform/proto';
import type { PayoutsApi } from '../dependencies';
import { answerPage } from '../paging';
import type { OperationHandler } from './operation';
import { presentHandle, toPayoutListRequest } from './transfers.route';

/** The send as partners see it: spec fields first, additive ones after. */
export function presentUsdtSend(send: payouts.UsdtSend) {
  return {
    id: send.id,
    status: send.status,
    destinationWalletId: send.destinationWalletId,
    usdtAmount: send.usdtAmount,
    partnerReference: send.partnerReference,
    failureReason: send.failureReason ?? null,
    createdAt: send.createdAt,
    confirmedAt: send.confirmedAt ?? null,
    confirmation: presentHandle(send.confirmation),
    settledAt: send.settledAt ?? null,
    idempotencyKey: send.idempotencyKey,
  };
}

/** POST /v1/usdt/sends → 202 the send, awaiting_confirmation. */
export function createUsdtSendHandler(deps: {
  payouts: Pick<PayoutsApi, 'createUsdtSend'>;
}): OperationHandler<'createUsdtSend'> {
  return async ({ partnerId, body }, res) => {
    const result = await deps.payouts.createUsdtSend({ partnerId, ...body });
    if (!result.send) throw new Error('payouts answered without a send');
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(202).json(presentUsdtSend(result.send));
  };
}

/** GET /v1/usdt/sends/{id} → 200 the send. */
export function getUsdtSendHandler(deps: {
  payouts: Pick<PayoutsApi, 'getUsdtSend'>;
}): OperationHandler<'getUsdtSend'> {
  return async ({ partnerId, params }, res) => {
    res.status(200).json(presentUsdtSend(await deps.payouts.getUsdtSend({ partnerId, sendId: params.id })));
  };
}

/** GET /v1/usdt/sends → 200 a page of the partner's sends, newest first. */
export function listUsdtSendsHandler(deps: {
  payouts: Pick<PayoutsApi, 'listUsdtSends'>;
}): OperationHandler<'listUsdtSends'> {
  return async ({ partnerId, query }, res) => {
    const result = await deps.payouts.listUsdtSends(toPayoutListRequest(partnerId, query));
    answerPage(res, result.sends.map(presentUsdtSend), result.nextCursor);
  };
}
