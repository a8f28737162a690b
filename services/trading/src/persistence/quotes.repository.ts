/** quotes: written once at issue; consumed later by an order (consumed_at). */
import type { DataSource } from '@platform/persistence';
import { formatAmount, formatDecimal, RATE_SCALE } from '@platform/money';
import type { FeeSchedule } from '../domain/fee-schedule';
import type { PricedQuote } from '../domain/pricing';

export interface NewQuote {
  quoteId: string;
  partnerId: string;
  pricedBy: 'KES' | 'USDT';
  priced: PricedQuote;
  fee: FeeSchedule;
  rateObservedAt: Date;
  expiresAt: Date;
  createdAt: Date;
}

export class QuotesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Money goes in as exact-scale strings, so PostgreSQL never sees a float. */
  async insert(quote: NewQuote): Promise<void> {
    const { priced, fee } = quote;
    await this.dataSource.query(
      `INSERT INTO quotes (quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps, fee_flat_kes,
                           fee_cap_kes, kes_total_amount, rate_observed_at, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        quote.quoteId,
        quote.partnerId,
        priced.side,
        quote.pricedBy,
        formatAmount(priced.kesAmount, 'KES'),
        formatAmount(priced.usdtAmount, 'USDT'),
        formatDecimal(priced.rate, RATE_SCALE),
        formatAmount(priced.feeKes, 'KES'),
        fee.percentBps,
        formatAmount(fee.flatKes, 'KES'),
        fee.capKes === null ? null : formatAmount(fee.capKes, 'KES'),
        formatAmount(priced.kesTotalAmount, 'KES'),
        quote.rateObservedAt.toISOString(),
        quote.expiresAt.toISOString(),
        quote.createdAt.toISOString(),
      ],
    );
  }
}
