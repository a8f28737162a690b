/**
 * gRPC answers → the partner JSON. Values pass through as the services formatted them, each asserted
 * against the wire conventions on the way out (domain/wire-format.ts).
 */
import type { ledger, trading } from '@platform/proto';
import {
  WireFormatError,
  wireAmount,
  wireCurrency,
  wireNonEmptyString,
  wireNonNegativeInteger,
  wireRate,
  wireTimestamp,
  wireUuid,
} from '../domain/wire-format';

function wireSide(value: string): 'buy' | 'sell' {
  if (value !== 'buy' && value !== 'sell') throw new WireFormatError('side', '"buy" or "sell"');
  return value;
}

export function presentQuote(quote: trading.Quote) {
  const fee = quote.fee;
  if (!fee) throw new WireFormatError('fee', 'present');
  return {
    quoteId: wireUuid(quote.quoteId, 'quoteId'),
    side: wireSide(quote.side),
    kesAmount: wireAmount(quote.kesAmount, 'KES', 'kesAmount'),
    usdtAmount: wireAmount(quote.usdtAmount, 'USDT', 'usdtAmount'),
    rate: wireRate(quote.rate, 'rate'),
    kesTotalAmount: wireAmount(quote.kesTotalAmount, 'KES', 'kesTotalAmount'),
    fee: {
      kesAmount: wireAmount(fee.kesAmount, 'KES', 'fee.kesAmount'),
      currency: 'KES',
      percentBps: wireNonNegativeInteger(fee.percentBps, 'fee.percentBps'),
      flatKesAmount: wireAmount(fee.flatKesAmount, 'KES', 'fee.flatKesAmount'),
      capKesAmount: fee.capKesAmount === undefined ? null : wireAmount(fee.capKesAmount, 'KES', 'fee.capKesAmount'),
    },
    expiresAt: wireTimestamp(quote.expiresAt, 'expiresAt'),
    settlementEstimateSeconds: wireNonNegativeInteger(quote.settlementEstimateSeconds, 'settlementEstimateSeconds'),
  };
}

export function presentSandboxRate(rate: trading.SandboxRate) {
  return {
    bid: wireRate(rate.bid, 'bid'),
    ask: wireRate(rate.ask, 'ask'),
    halted: rate.halted,
    observedAt: wireTimestamp(rate.observedAt, 'observedAt'),
  };
}

export function presentKesCredit(credit: ledger.KesCredit) {
  const amount = credit.amount;
  if (!amount) throw new WireFormatError('amount', 'present');
  const currency = wireCurrency(amount.currency, 'amount.currency');
  return {
    transactionId: wireUuid(credit.transactionId, 'transactionId'),
    accountId: wireUuid(credit.accountId, 'accountId'),
    amount: { currency, value: wireAmount(amount.value, currency, 'amount.value') },
    rail: wireNonEmptyString(credit.rail, 'rail'),
    reference: credit.railReference ?? null,
    receivedAt: wireTimestamp(credit.receivedAt, 'receivedAt'),
  };
}

/** In the ledger's order (KES first, then USDT, then any other). */
export function presentBalances(response: ledger.GetBalancesResponse) {
  return response.balances.map((balance, index) => {
    const currency = wireCurrency(balance.currency, `[${index}].currency`);
    return {
      accountId: wireUuid(balance.accountId, `[${index}].accountId`),
      currency,
      available: wireAmount(balance.available, currency, `[${index}].available`),
      held: wireAmount(balance.held, currency, `[${index}].held`),
    };
  });
}
