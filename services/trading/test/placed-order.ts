/**
 * What the placement specs hand OrdersRepository.place: a debit-first buy of 100.00 KES
 * (fee 0.50 at 130.0000) on a quote of the same terms (insertBuyQuote).
 */
import { randomUUID } from 'node:crypto';
import type { DataSource } from '@platform/persistence';
import type { NewOrder } from '../src/persistence/orders.repository';

/** A quote of the partner for that buy, valid for 30 seconds; `consumed` as if an order had taken it. */
export async function insertBuyQuote(db: DataSource, partnerId: string, consumed = false): Promise<string> {
  const quoteId = randomUUID();
  await db.query(
    `INSERT INTO quotes (quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps, fee_flat_kes,
                         kes_total_amount, rate_observed_at, expires_at, consumed_at, created_at)
     VALUES ($1, $2, 'buy', 'KES', 100.00, 0.769231, 130.0000, 0.50, 50, 0.00, 100.50, now(), now() + interval '30 seconds',
             CASE WHEN $3 THEN now() END, now())`,
    [quoteId, partnerId, consumed],
  );
  return quoteId;
}

/** The buy on `quoteId`, under a partnerReference of its own. */
export function buyOrderOn(partnerId: string, quoteId: string): NewOrder {
  const orderId = randomUUID();
  return {
    orderId,
    partnerId,
    partnerReference: `placed-${orderId}`,
    quoteId,
    side: 'buy',
    fundingMode: 'debit_first',
    status: 'funds_reserved',
    kesAmount: '100.00',
    usdtAmount: '0.769231',
    rate: '130.0000',
    feeKes: '0.50',
    feeBps: 50,
    feeFlatKes: '0.00',
    feeCapKes: null,
    kesTotalAmount: '100.50',
    expiresAt: new Date(Date.now() + 30_000),
    kesDebitStatus: 'reserved',
    debitOutcome: 'pending',
    depositAddress: null,
    sendBefore: null,
    payoutAccountId: null,
    nextActionAt: null,
  };
}
