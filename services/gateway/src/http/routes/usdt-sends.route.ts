/**
 * USDT sends (spec sections 2 and 4; scope payouts, read for GET). The
 * gateway checks the body's shape; payouts decides its content. Create
 * answers 202; a replay of the same idempotencyKey and body answers the
 * original send with 202 and `Idempotent-Replayed: true`.
 */
import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import type { payouts } from '@platform/proto';
import { z } from 'zod';
import type { PayoutsApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { parseJsonObject, validateBody } from '../validation';
import { isUuidParam } from './path-params';
import { presentHandle } from './transfers.route';

const FIELD_LENGTH_MAX = 200;
const text = () => z.string().max(FIELD_LENGTH_MAX);

export const usdtSendRequestSchema = z.object({
  destinationWalletId: text(),
  usdtAmount: text(),
  idempotencyKey: text(),
  /** Additive (contract decisions section 9): defaults to idempotencyKey. */
  partnerReference: text().optional(),
}).strict();

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
export function createUsdtSendHandler(deps: { payouts: Pick<PayoutsApi, 'createUsdtSend'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(usdtSendRequestSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const result = await deps.payouts.createUsdtSend({ partnerId: partnerAuthOf(res).partnerId, ...body });
    if (!result.send) throw new Error('payouts answered without a send');
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(202).json(presentUsdtSend(result.send));
  };
}

/** GET /v1/usdt/sends/{id} → 200 the send. */
export function getUsdtSendHandler(deps: { payouts: Pick<PayoutsApi, 'getUsdtSend'> }): RequestHandler {
  return async (req, res) => {
    const sendId = req.params.id;
    if (!isUuidParam(sendId)) throw new AppError('SEND_NOT_FOUND');
    res.status(200).json(presentUsdtSend(await deps.payouts.getUsdtSend({ partnerId: partnerAuthOf(res).partnerId, sendId })));
  };
}
