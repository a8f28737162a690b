/**
 * The mobile-money funding prompt and its sandbox answers. The phone's format
 * and the amount limits are payouts' rules: it names `phone` or `amount` in
 * its 400.
 */
import type { payoutsFunding } from '@platform/proto';
import type { PayoutsApi } from '../dependencies';
import { answerPage, listWindow } from '../paging';
import type { OperationHandler } from './operation';

/** POST /v1/funding/mobile-money-push → 202 `{pushId, status}` once the prompt is out. */
export function createMobileMoneyPushHandler(deps: {
  payouts: Pick<PayoutsApi, 'createMobileMoneyPush'>;
}): OperationHandler<'pushMobileMoneyPrompt'> {
  return async ({ partnerId, body }, res) => {
    const push = await deps.payouts.createMobileMoneyPush({ partnerId, phone: body.phone, amountKes: body.amount });
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

/** A prompt in the partner's list: the payer's number masked, as payouts sends it. */
export function presentPush(push: payoutsFunding.MobileMoneyPush) {
  return {
    pushId: push.pushId,
    status: push.status,
    amount: { currency: 'KES', value: push.amountKes },
    phone: push.phoneMasked,
    createdAt: push.createdAt,
    expiresAt: push.expiresAt,
    answeredAt: push.answeredAt ?? null,
    creditTransactionId: push.creditTransactionId ?? null,
  };
}

/** GET /v1/funding/mobile-money-push → 200 a page of the partner's prompts, newest first. */
export function listMobileMoneyPushesHandler(deps: {
  payouts: Pick<PayoutsApi, 'listMobileMoneyPushes'>;
}): OperationHandler<'listMobileMoneyPushes'> {
  return async ({ partnerId, query }, res) => {
    const result = await deps.payouts.listMobileMoneyPushes({
      partnerId,
      status: query.status,
      ...listWindow(query),
    });
    answerPage(res, result.pushes.map(presentPush), result.nextCursor);
  };
}

/** POST /v1/sandbox/mobile-money-pushes/{pushId}/approve|decline (no body) → 200 the push as it stands. */
export function answerMobileMoneyPushHandler(
  deps: { payouts: Pick<PayoutsApi, 'approveMobileMoneyPush' | 'declineMobileMoneyPush'> },
  answer: 'approve' | 'decline',
): OperationHandler<'sandboxApproveMobileMoneyPush' | 'sandboxDeclineMobileMoneyPush'> {
  return async ({ partnerId, params }, res) => {
    const request = { partnerId, pushId: params.pushId };
    const push =
      answer === 'approve'
        ? await deps.payouts.approveMobileMoneyPush(request)
        : await deps.payouts.declineMobileMoneyPush(request);
    res.status(200).json(presentAnsweredPush(push));
  };
}
