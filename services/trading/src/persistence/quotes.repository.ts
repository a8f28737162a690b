/**
 * quotes: written once at issue; consumed later by an order (consumed_at), in the
 * statement that places it (trading_place_order, OrdersRepository.place), and read by
 * an order's create with the rest of its intake (OrderIntakeRepository). Every other
 * statement on quotes lives here.
 */
import type { DataSource, EntityManager } from '@platform/persistence';
import { queryPrepared, queryPreparedArrays } from '@platform/persistence';
import type { FeeSchedule, RawFeeSchedule } from '../domain/fee-schedule';
import type { PricedQuote, QuoteAmounts } from '../domain/pricing';

export interface NewQuote {
  quoteId: string;
  partnerId: string;
  pricedBy: 'KES' | 'USDT';
  priced: PricedQuote;
  fee: FeeSchedule;
  /** `priced` and `fee` formatted (formatQuoteAmounts), once: what the row stores and the answer shows. */
  amounts: QuoteAmounts;
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

/** The columns of a quote's row, in the order of every insert's values. */
const QUOTE_COLUMNS = `quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps, fee_flat_kes,
                      fee_cap_kes, kes_total_amount, rate_observed_at, expires_at, created_at`;
/** One array parameter per column of QUOTE_COLUMNS (money as text, cast to numeric by the column, so exact). */
const QUOTE_ARRAYS = `$1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::numeric[], $6::numeric[], $7::numeric[],
                      $8::numeric[], $9::int[], $10::numeric[], $11::numeric[], $12::numeric[],
                      $13::timestamptz[], $14::timestamptz[], $15::timestamptz[]`;

/**
 * Many quotes in one statement and one commit, without the flush wait (as above): each
 * column's values as one array parameter, so the statement is the same text whatever the
 * count, prepared once.
 */
const INSERT_QUOTES_SQL = `
  WITH flush AS (SELECT set_config('synchronous_commit', 'off', true))
  INSERT INTO quotes (${QUOTE_COLUMNS})
  SELECT q.* FROM flush, unnest(${QUOTE_ARRAYS}) AS q`;

/**
 * The same, storing only the quotes whose partner's stored fee schedule is, as this statement
 * reads it, the one the quote was priced with (each quote's schedule as read, raw: $16–$18,
 * compared column by column in the columns' own types, so "1.5" and "1.50" differ and a
 * changed schedule never passes). Answers the ids stored.
 */
const INSERT_QUOTES_IF_SCHEDULE_CURRENT_SQL = `
  WITH flush AS (SELECT set_config('synchronous_commit', 'off', true))
  INSERT INTO quotes (${QUOTE_COLUMNS})
  SELECT ${QUOTE_COLUMNS}
    FROM flush, unnest(${QUOTE_ARRAYS}, $16::int[], $17::text[], $18::text[])
         AS q(${QUOTE_COLUMNS}, schedule_bps, schedule_flat_kes, schedule_cap_kes)
   WHERE EXISTS (SELECT FROM partner_profiles p
                  WHERE p.partner_id = q.partner_id AND p.fee_bps = q.schedule_bps
                    AND p.fee_flat_kes = q.schedule_flat_kes AND p.fee_cap_kes IS NOT DISTINCT FROM q.schedule_cap_kes)
  RETURNING quote_id`;

/** A quote priced with a fee schedule as it was read (raw), for the insert that checks it is still the stored one. */
export interface QuotePricedWith {
  quote: NewQuote;
  schedule: RawFeeSchedule;
}

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
    if (quotes.length === 0) return;
    await queryPrepared(
      this.dataSource,
      'quotes_insert_many',
      INSERT_QUOTES_SQL,
      columnArrays(quotes.map(insertValues)),
    );
  }

  /**
   * Those of `quotes` whose partner's stored fee schedule is still the one each was priced with
   * (INSERT_QUOTES_IF_SCHEDULE_CURRENT_SQL), in one statement and one commit, on the pool; answers
   * the ids stored. The others are not stored, and nothing is when the statement fails.
   */
  async insertManyIfScheduleCurrent(quotes: readonly QuotePricedWith[]): Promise<Set<string>> {
    if (!isDataSource(this.dataSource)) throw new Error('insertManyIfScheduleCurrent runs on the data source');
    if (quotes.length === 0) return new Set();
    const rows = quotes.map(({ quote, schedule }) => [
      ...insertValues(quote),
      schedule.feeBps,
      schedule.feeFlatKes,
      schedule.feeCapKes ?? null,
    ]);
    const stored = await queryPreparedArrays<[string]>(
      this.dataSource,
      'quotes_insert_if_schedule_current',
      INSERT_QUOTES_IF_SCHEDULE_CURRENT_SQL,
      columnArrays(rows),
    );
    return new Set(stored.map(([quoteId]) => quoteId));
  }

  /** Gives a consumed quote back (its order was undone before any value moved). */
  async unconsume(manager: EntityManager, quoteId: string): Promise<void> {
    await manager.query('UPDATE quotes SET consumed_at = NULL WHERE quote_id = $1', [quoteId]);
  }
}

/** Rows of values as one array per column (the array parameters of a many-row insert). */
function columnArrays(rows: readonly unknown[][]): unknown[][] {
  return rows[0].map((_, column) => rows.map((row) => row[column]));
}

/** The insert's parameters, in INSERT_QUOTE_SQL's order. */
function insertValues(quote: NewQuote): unknown[] {
  const { amounts } = quote;
  return [
    quote.quoteId,
    quote.partnerId,
    quote.priced.side,
    quote.pricedBy,
    amounts.kesAmount,
    amounts.usdtAmount,
    amounts.rate,
    amounts.feeKes,
    quote.fee.percentBps,
    amounts.feeFlatKes,
    amounts.feeCapKes,
    amounts.kesTotalAmount,
    quote.rateObservedAt.toISOString(),
    quote.expiresAt.toISOString(),
    quote.createdAt.toISOString(),
  ];
}

/** The data source (it has a pool), not a transaction's manager. */
function isDataSource(queryable: Queryable): queryable is DataSource {
  return 'driver' in queryable;
}
