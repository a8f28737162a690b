/**
 * The mobile-money funding prompt (spec section 4) and its sandbox answers
 * (contract decisions section 6). The phone's format and the amount limits
 * are payouts' rules: it names `phone` or `amount` in its 400.
 */
import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import type { payoutsFunding } from '@platform/proto';
import { z } from 'zod';
import type { PayoutsApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { parseJsonObject, validateBody } from '../validation';
import { positiveAmount } from './amount-schemas';
import { isUuidParam } from './path-params';

const PHONE_LENGTH_MAX = 32;

export const mobileMoneyPushSchema = z.object({
  phone: z.string().min(1).max(PHONE_LENGTH_MAX),
  amount: positiveAmount('KES'),
}).strict();

/** POST /v1/funding/mobile-money-push → 202 `{pushId, status}` once the prompt is out. */
export function createMobileMoneyPushHandler(deps: { payouts: Pick<PayoutsApi, 'createMobileMoneyPush'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(mobileMoneyPushSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const push = await deps.payouts.createMobileMoneyPush({ partnerId: partnerAuthOf(res).partnerId, phone: body.phone, amountKes: body.amount });
    res.status(202).json({ pushId: push.pushId, status: push.status });
  };
}

/** The sandbox view of a push: what the payer's answer did. */
export function presentAnsweredPush(push: payoutsFunding.MobileMoneyPush) {
  return {
    pushId: push.pushId,
    status: push.status,
    amount: { currency: 'KES', value: push.amountKes },
    expiresAt: push.expiresAt,
    answeredAt: push.answeredAt ?? null,
    creditTransactionId: push.creditTransactionId ?? null,
  };
}

/** POST /v1/sandbox/mobile-money-pushes/{pushId}/approve|decline (no body) → 200 the push as it stands. */
export function answerMobileMoneyPushHandler(deps: { payouts: Pick<PayoutsApi, 'approveMobileMoneyPush' | 'declineMobileMoneyPush'> }, answer: 'approve' | 'decline'): RequestHandler {
  return async (req, res) => {
    if (!isUuidParam(req.params.id)) throw new AppError('MOBILE_MONEY_PUSH_NOT_FOUND');
    const request = { partnerId: partnerAuthOf(res).partnerId, pushId: req.params.id };
    const push = answer === 'approve' ? await deps.payouts.approveMobileMoneyPush(request) : await deps.payouts.declineMobileMoneyPush(request);
    res.status(200).json(presentAnsweredPush(push));
  };
}
