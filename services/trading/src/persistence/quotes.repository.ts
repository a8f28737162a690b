/**
 * quotes: written once at issue; consumed later by an order (consumed_at), in the
 * statement that places it (trading_place_order, OrdersRepository.place), and read by
 * an order's create with the rest of its intake (OrderIntakeRepository). Every other
 * statement on quotes lives here.
 */
import type { DataSource, EntityManager } from '@platform/persistence';
import { queryPrepared } from '@platform/persistence';
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

/** A stored quote as an order reads it: every amount a string. */
export interface QuoteRecord {
  quoteId: string;
  side: 'buy' | 'sell';
  kesAmount: string;
  usdtAmount: string;
  rate: string;
  feeKes: string;
  feeBps: number;
  feeFlatKes: string;
  feeCapKes: string | null;
  kesTotalAmount: string;
  expiresAt: Date;
}

/**
 * A quote is an offer, not a state change anything else depends on until an
 * order consumes it, so its insert does not wait for the disk flush
 * (`synchronous_commit` off for this one statement's transaction): it saves the
 * fsync wait, the largest part of a quote's latency on a busy disk. If
 * PostgreSQL crashes in the fraction of a second before the WAL writer flushes
 * it, the quote is gone and an order naming it is refused as an unknown quote
 * (nothing moves); the partner asks for a new one. Any later synchronous commit
 * (an order's) flushes it too, so an order can never rest on a lost quote.
 */
const INSERT_QUOTE_SQL = `
  WITH flush AS (SELECT set_config('synchronous_commit', 'off', true))
  INSERT INTO quotes (quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps, fee_flat_kes,
                      fee_cap_kes, kes_total_amount, rate_observed_at, expires_at, created_at)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15 FROM flush`;

/**
 * Many quotes in one statement and one commit, without the flush wait (as above): each
 * column's values as one array parameter (text for money, cast to numeric by the column,
 * so exact), so the statement is the same text whatever the count, prepared once.
 */
const INSERT_QUOTES_SQL = `
  WITH flush AS (SELECT set_config('synchronous_commit', 'off', true))
  INSERT INTO quotes (quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps, fee_flat_kes,
                      fee_cap_kes, kes_total_amount, rate_observed_at, expires_at, created_at)
  SELECT q.* FROM flush, unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::numeric[], $6::numeric[], $7::numeric[],
                               $8::numeric[], $9::int[], $10::numeric[], $11::numeric[], $12::numeric[],
                               $13::timestamptz[], $14::timestamptz[], $15::timestamptz[]) AS q`;

/** The data source in service (its pool for the insert), a transaction's manager where a spec needs one. */
type Queryable = Pick<DataSource, 'query'>;

export class QuotesRepository {
  /** Given the data source, each insert is its own transaction, so the relaxed flush ends with it. */
  constructor(private readonly dataSource: Queryable) {}

  /**
   * Money goes in as exact-scale strings, so PostgreSQL never sees a float. One statement, no flush wait (above):
   * given the data source, a named prepared statement on the pool (parsed once per connection); given a
   * transaction's manager, through it.
   */
  async insert(quote: NewQuote): Promise<void> {
    const values = insertValues(quote);
    if (isDataSource(this.dataSource)) await queryPrepared(this.dataSource, 'quote_insert', INSERT_QUOTE_SQL, values);
    else await this.dataSource.query(INSERT_QUOTE_SQL, values);
  }

  /** All of `quotes` in one statement and one commit (INSERT_QUOTES_SQL), on the pool: none is stored if it fails. */
  async insertMany(quotes: readonly NewQuote[]): Promise<void> {
    if (!isDataSource(this.dataSource)) throw new Error('insertMany runs on the data source, in its own transaction');
    const rows = quotes.map(insertValues);
    const columns = INSERT_COLUMN_COUNT;
    const arrays = Array.from({ length: columns }, (_, column) => rows.map((row) => row[column]));
    await queryPrepared(this.dataSource, 'quotes_insert_many', INSERT_QUOTES_SQL, arrays);
  }

  /** Gives a consumed quote back (its order was undone before any value moved). */
  async unconsume(manager: EntityManager, quoteId: string): Promise<void> {
    await manager.query('UPDATE quotes SET consumed_at = NULL WHERE quote_id = $1', [quoteId]);
  }
}

/** Columns of a quote's insert (INSERT_QUOTE_SQL's parameters, INSERT_QUOTES_SQL's arrays). */
const INSERT_COLUMN_COUNT = 15;

/** The insert's parameters, in INSERT_QUOTE_SQL's order. */
function insertValues(quote: NewQuote): unknown[] {
  const { priced, fee } = quote;
  return [
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
  ];
}

/** The data source (it has a pool), not a transaction's manager. */
function isDataSource(queryable: Queryable): queryable is DataSource {
  return 'driver' in queryable;
}
