// Proves trading's retention against PostgreSQL, on a scratch database migrated by
// trading's own migrations and swept with its own rules: quotes never consumed are
// deleted QUOTE_RETENTION_MS after they expired, in batches; a quote expired more
// recently, one still live, and a consumed quote of any age (the record of what its
// order was offered) are kept; the delete walks the index its migration added. The
// outbox's rule is proven as in every service with an outbox.
import { randomUUID } from 'node:crypto';
import { describeOutboxRetention, RetentionStand, retentionStand } from '@platform/testing';
import { tradingDataSource } from '../src/persistence/data-source';
import { tradingRetentionRules } from '../src/workers/retention.worker';

const HOUR_MS = 60 * 60_000;
const rules = tradingRetentionRules({ outboxRetentionMs: HOUR_MS, quoteRetentionMs: HOUR_MS });
const quotesRule = rules.find((rule) => rule.table === 'quotes')!;

describeOutboxRetention('trading', tradingDataSource, (outboxRetentionMs) =>
  tradingRetentionRules({ outboxRetentionMs, quoteRetentionMs: HOUR_MS }),
);

describe('quote retention (trading)', () => {
  let stand: RetentionStand;

  beforeAll(async () => {
    stand = await retentionStand('trading_quote_retention', tradingDataSource);
  });
  afterAll(() => stand?.drop());

  /** A buy quote that expired `expiredAgoMs` ago (negative: still live), consumed or not. */
  async function plantQuote(expiredAgoMs: number, consumed: boolean): Promise<string> {
    const quoteId = randomUUID();
    const expiresAt = new Date(Date.now() - expiredAgoMs);
    const createdAt = new Date(expiresAt.getTime() - 30_000);
    await stand.db.query(
      `INSERT INTO quotes (quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps,
                           fee_flat_kes, fee_cap_kes, kes_total_amount, rate_observed_at, expires_at, consumed_at, created_at)
       VALUES ($1, $2, 'buy', 'KES', '100.00', '0.770000', '129.5000', '1.00', 100, '0.00', NULL, '101.00', $3, $4, $5, $3)`,
      [quoteId, randomUUID(), createdAt, expiresAt, consumed ? createdAt : null],
    );
    return quoteId;
  }

  async function remaining(ids: string[]): Promise<string[]> {
    const rows = (await stand.db.query('SELECT quote_id FROM quotes WHERE quote_id = ANY($1)', [ids])) as Array<{
      quote_id: string;
    }>;
    return rows.map((row) => row.quote_id).sort();
  }

  it('deletes unconsumed quotes past the window and keeps recent, live and consumed ones', async () => {
    const dead = await Promise.all(Array.from({ length: 23 }, () => plantQuote(2 * HOUR_MS, false)));
    const recentlyExpired = await plantQuote(10 * 60_000, false);
    const live = await plantQuote(-60_000, false);
    const ofAnOrder = await plantQuote(10 * 24 * HOUR_MS, true);

    await stand.sweep([quotesRule], 10);

    expect(await remaining([...dead, recentlyExpired, live, ofAnOrder])).toEqual(
      [recentlyExpired, live, ofAnOrder].sort(),
    );
  });

  it('walks the index of unconsumed quotes by expiry', async () => {
    expect(await stand.deletePlan(quotesRule)).toContain('quotes_unconsumed_expiry_idx');
  });
});
