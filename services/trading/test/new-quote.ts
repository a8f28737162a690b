/** A priced quote as the quote specs store it (the repository's input), not through pricing. */
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import type { FeeSchedule } from '../src/domain/fee-schedule';
import { formatQuoteAmounts, PricedQuote } from '../src/domain/pricing';
import type { NewQuote } from '../src/persistence/quotes.repository';

/**
 * A quote with fixed amounts: a buy of 1000.00 KES at 129.9601, fee 5.00, as pricing leaves it under the default
 * `fee` (50 bps, no flat part, no cap). A `fee` given is stored as the quote's schedule but does not reprice it
 * (the specs test storage, not pricing). `partnerId` a new one unless given.
 */
export function newQuote(
  fee: FeeSchedule = { percentBps: 50, flatKes: new Big('0'), capKes: null },
  partnerId: string = randomUUID(),
): NewQuote {
  const createdAt = new Date();
  const priced: PricedQuote = {
    side: 'buy',
    kesAmount: new Big('1000.00'),
    usdtAmount: new Big('7.694669'),
    rate: new Big('129.9601'),
    feeKes: new Big('5.00'),
    kesTotalAmount: new Big('1005.00'),
  };
  return {
    quoteId: randomUUID(),
    partnerId,
    pricedBy: 'KES',
    priced,
    fee,
    amounts: formatQuoteAmounts(priced, fee),
    rateObservedAt: createdAt,
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 30_000),
  };
}
