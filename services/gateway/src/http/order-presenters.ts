/**
 * Orders on the wire: the shape
 * follows the side and the funding mode. Values pass through as trading
 * formatted them, each asserted against the wire conventions.
 */
import type { trading } from '@platform/proto';
import {
  WireFormatError,
  wireAmount,
  wireNonEmptyString,
  wireNonNegativeInteger,
  wireRate,
  wireTimestamp,
  wireUuid,
} from '../domain/wire-format';

function wireFee(fee: trading.Fee | undefined) {
  if (!fee) throw new WireFormatError('fee', 'present');
  return {
    kesAmount: wireAmount(fee.kesAmount, 'KES', 'fee.kesAmount'),
    currency: 'KES',
    percentBps: wireNonNegativeInteger(fee.percentBps, 'fee.percentBps'),
    flatKesAmount: wireAmount(fee.flatKesAmount, 'KES', 'fee.flatKesAmount'),
    capKesAmount: fee.capKesAmount === undefined ? null : wireAmount(fee.capKesAmount, 'KES', 'fee.capKesAmount'),
  };
}

/** The mode-specific fields: kesDebit on a debit-first buy; the deposit block on a deposit-mode sell. */
function modeFields(order: trading.Order): Record<string, unknown> {
  if (order.fundingMode === 'debit_first')
    return { kesDebit: { status: wireNonEmptyString(order.kesDebit?.status, 'kesDebit.status') } };
  if (order.fundingMode === 'deposit') {
    return {
      depositAddress: wireNonEmptyString(order.depositAddress, 'depositAddress'),
      chain: wireNonEmptyString(order.chain, 'chain'),
      sendBefore: wireTimestamp(order.sendBefore, 'sendBefore'),
      ...(order.txHash ? { txHash: order.txHash } : {}),
    };
  }
  if (order.fundingMode === 'pay_in') return payInFields(order);
  return {};
}

/** A pay-in buy: instructions and reference always; kesDebit once the payment is held; the payment block once matched. */
function payInFields(order: trading.Order): Record<string, unknown> {
  const instructions = order.paymentInstructions;
  if (!instructions) throw new WireFormatError('paymentInstructions', 'present');
  return {
    walletId: wireUuid(order.walletId, 'walletId'),
    paymentReference: wireNonEmptyString(order.paymentReference, 'paymentReference'),
    paymentInstructions: {
      rail: wireNonEmptyString(instructions.rail, 'paymentInstructions.rail'),
      paybill: wireNonEmptyString(instructions.paybill, 'paymentInstructions.paybill'),
      payTo: wireNonEmptyString(instructions.payTo, 'paymentInstructions.payTo'),
      beneficiaryName: wireNonEmptyString(instructions.beneficiaryName, 'paymentInstructions.beneficiaryName'),
      reference: wireNonEmptyString(instructions.reference, 'paymentInstructions.reference'),
      kesAmount: wireAmount(instructions.kesAmount, 'KES', 'paymentInstructions.kesAmount'),
      currency: 'KES',
      payBefore: wireTimestamp(instructions.payBefore, 'paymentInstructions.payBefore'),
      instructions: wireNonEmptyString(instructions.instructions, 'paymentInstructions.instructions'),
    },
    payBefore: wireTimestamp(instructions.payBefore, 'payBefore'),
    ...(order.kesDebit ? { kesDebit: { status: wireNonEmptyString(order.kesDebit.status, 'kesDebit.status') } } : {}),
    ...(order.payment
      ? {
          payment: {
            railReference: order.payment.railReference,
            bankTransactionId: wireNonEmptyString(order.payment.bankTransactionId, 'payment.bankTransactionId'),
            matchedAt: wireTimestamp(order.payment.matchedAt, 'payment.matchedAt'),
          },
        }
      : {}),
  };
}

export function presentOrder(order: trading.Order) {
  return {
    orderId: wireUuid(order.orderId, 'orderId'),
    partnerReference: order.partnerReference,
    side: order.side,
    status: wireNonEmptyString(order.status, 'status'),
    kesAmount: wireAmount(order.kesAmount, 'KES', 'kesAmount'),
    usdtAmount: wireAmount(order.usdtAmount, 'USDT', 'usdtAmount'),
    rate: wireRate(order.rate, 'rate'),
    kesTotalAmount: wireAmount(order.kesTotalAmount, 'KES', 'kesTotalAmount'),
    fee: wireFee(order.fee),
    expiresAt: wireTimestamp(order.expiresAt, 'expiresAt'),
    ...modeFields(order),
    createdAt: wireTimestamp(order.createdAt, 'createdAt'),
  };
}
