/**
 * Orders on the wire (spec section 2, contract decisions section 4): the shape
 * follows the side and the funding mode. Values pass through as trading
 * formatted them, each asserted against the wire conventions.
 */
import type { trading } from '@platform/proto';
import { WireFormatError, wireAmount, wireNonEmptyString, wireNonNegativeInteger, wireRate, wireTimestamp, wireUuid } from '../domain/wire-format';

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
  if (order.fundingMode === 'debit_first') return { kesDebit: { status: wireNonEmptyString(order.kesDebit?.status, 'kesDebit.status') } };
  if (order.fundingMode === 'deposit') {
    return {
      depositAddress: wireNonEmptyString(order.depositAddress, 'depositAddress'),
      chain: wireNonEmptyString(order.chain, 'chain'),
      sendBefore: wireTimestamp(order.sendBefore, 'sendBefore'),
      ...(order.txHash ? { txHash: order.txHash } : {}),
    };
  }
  return {};
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
