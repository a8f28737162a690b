/**
 * KES transfers and confirmations (scope payouts, read for GET). The gateway
 * checks the body's shape; payouts decides everything about its content
 * (rails, formats, caps) and names the offending fields. Create answers 202;
 * a replay of the same idempotencyKey and body answers the original transfer
 * with 202 and `Idempotent-Replayed: true`.
 */
import type { BodyOf, QueryOf } from '@platform/openapi';
import type { payouts } from '@platform/proto';
import type { PayoutsApi } from '../dependencies';
import { answerPage, listWindow } from '../paging';
import type { OperationHandler } from './operation';

export type TransferRequestBody = BodyOf<'createTransfer'>;

export function presentHandle(handle: payouts.ConfirmationHandle | undefined) {
  if (!handle) throw new Error('payouts answered without a confirmation handle');
  return {
    id: handle.id,
    channel: handle.channel,
    deliveredTo: handle.deliveredTo,
    expiresAt: handle.expiresAt,
    resendAvailableAt: handle.resendAvailableAt,
  };
}

/** The transfer as partners see it: spec fields first, additive ones after. */
export function presentTransfer(transfer: payouts.Transfer) {
  return {
    id: transfer.id,
    status: transfer.status,
    rail: transfer.rail,
    amount: { currency: 'KES', value: transfer.amountValue },
    fee: { currency: 'KES', value: transfer.feeValue },
    destination: {
      accountNumber: transfer.accountNumberMasked,
      accountName: transfer.accountName,
      bankCode: transfer.bankCode ?? null,
    },
    nameVerification: transfer.nameVerification,
    verifiedAccountName: transfer.verifiedAccountName ?? null,
    partnerReference: transfer.partnerReference,
    failureCode: transfer.failureCode ?? null,
    createdAt: transfer.createdAt,
    confirmedAt: transfer.confirmedAt ?? null,
    settledAt: transfer.settledAt ?? null,
    confirmation: presentHandle(transfer.confirmation),
    idempotencyKey: transfer.idempotencyKey,
  };
}

export function toCreateTransferRequest(partnerId: string, body: TransferRequestBody): payouts.CreateTransferRequest {
  return {
    partnerId,
    rail: body.rail,
    accountNumber: body.destination.accountNumber,
    accountName: body.destination.accountName,
    bankCode: body.destination.bankCode,
    amountCurrency: body.amount.currency,
    amountValue: body.amount.value,
    idempotencyKey: body.idempotencyKey,
    partnerReference: body.partnerReference,
  };
}

/** Transfers and USDT sends are listed by the same filters, named in payouts as in the query. */
export function toPayoutListRequest(
  partnerId: string,
  query: QueryOf<'listTransfers'> | QueryOf<'listUsdtSends'>,
): payouts.ListTransfersRequest & payouts.ListUsdtSendsRequest {
  return {
    partnerId,
    status: query.status,
    partnerReference: query.partnerReference,
    idempotencyKey: query.idempotencyKey,
    ...listWindow(query),
  };
}

/** POST /v1/transfers → 202 the transfer, awaiting_confirmation. */
export function createTransferHandler(deps: {
  payouts: Pick<PayoutsApi, 'createTransfer'>;
}): OperationHandler<'createTransfer'> {
  return async ({ partnerId, body }, res) => {
    const result = await deps.payouts.createTransfer(toCreateTransferRequest(partnerId, body));
    if (!result.transfer) throw new Error('payouts answered without a transfer');
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(202).json(presentTransfer(result.transfer));
  };
}

/** GET /v1/transfers/{id} → 200 the transfer. */
export function getTransferHandler(deps: {
  payouts: Pick<PayoutsApi, 'getTransfer'>;
}): OperationHandler<'getTransfer'> {
  return async ({ partnerId, params }, res) => {
    res.status(200).json(presentTransfer(await deps.payouts.getTransfer({ partnerId, transferId: params.id })));
  };
}

/** GET /v1/transfers → 200 a page of the partner's transfers, newest first. */
export function listTransfersHandler(deps: {
  payouts: Pick<PayoutsApi, 'listTransfers'>;
}): OperationHandler<'listTransfers'> {
  return async ({ partnerId, query }, res) => {
    const result = await deps.payouts.listTransfers(toPayoutListRequest(partnerId, query));
    answerPage(res, result.transfers.map(presentTransfer), result.nextCursor);
  };
}

/** POST /v1/confirmations/{id} → 200 the confirmation result. */
export function confirmHandler(deps: { payouts: Pick<PayoutsApi, 'confirm'> }): OperationHandler<'confirm'> {
  return async ({ partnerId, params, body }, res) => {
    const result = await deps.payouts.confirm({ partnerId, confirmationId: params.id, code: body.code });
    res.status(200).json({
      confirmationId: result.confirmationId,
      subjectType: result.subjectType,
      subjectId: result.subjectId,
      status: result.status,
      verifiedAt: result.verifiedAt,
    });
  };
}

/** POST /v1/confirmations/{id}/resend, no body → 200 the confirmation handle with its new expiresAt. */
export function resendConfirmationHandler(deps: {
  payouts: Pick<PayoutsApi, 'resendConfirmation'>;
}): OperationHandler<'resendConfirmation'> {
  return async ({ partnerId, params }, res) => {
    res
      .status(200)
      .json(presentHandle(await deps.payouts.resendConfirmation({ partnerId, confirmationId: params.id })));
  };
}
