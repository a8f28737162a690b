import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The two statements of an order's creation that read more rows the more the
 * partner holds, rewritten so only a primary key can serve them.
 *
 * - cap_windows_count (the cap_usages triggers): a usage's minute was added to
 *   its bucket by one UPDATE joined to the changes, an unnest of the trigger's
 *   arrays. PL/pgSQL keeps a generic plan per connection, and in it the unnest
 *   has no known length: the planner hashed the changes and read the bucket
 *   table whole, once per order (1,382 rows per order with 100,000 orders in
 *   the partner's window, against 6 with none). Each changed minute is now
 *   written on its own: an amount added is an insert that, when the minute
 *   already has its bucket, adds to it through the primary key (ON CONFLICT
 *   always finds the row by its unique index, whatever the planner thinks); an
 *   amount taken back updates the bucket named by its whole primary key. A
 *   bucket that is missing or driven below zero still fails its check: the
 *   buckets no longer match the usages, and the write stops, as before.
 * - trading_place_order: the quote was consumed by one UPDATE whose WHERE also
 *   said "not consumed, not expired", which the retention index of unconsumed
 *   quotes (by expiry) matches too; on a table of consumed quotes that index is
 *   tiny, the planner took it, and every order read every quote in flight. The
 *   quote is now locked by its primary key alone, checked, then consumed by
 *   its primary key. The outcomes, the lock order (advisory lock, cap window,
 *   quote, buckets) and a refusal leaving nothing behind are unchanged.
 *
 * Both are CREATE OR REPLACE of the same signatures: a replica of the previous
 * release calls the same functions and gets the same results.
 */
export class CapAndQuoteByKeyMigration1797700000000 implements MigrationInterface {
  name = 'CapAndQuoteByKeyMigration1797700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(COUNT_CHANGES_BY_KEY);
    await queryRunner.query(placeOrder(CONSUME_QUOTE_BY_KEY));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(COUNT_CHANGES_BY_JOIN);
    await queryRunner.query(placeOrder(CONSUME_QUOTE_BY_CONDITIONS));
  }
}

/** The window row of each partner, locked (or created), then the changes of its minutes still in the window. */
function countChanges(applyChanges: string): string {
  return `
  CREATE OR REPLACE FUNCTION cap_windows_count(partner_ids uuid[], bucket_starts timestamptz[], changes_kes numeric[]) RETURNS void
  LANGUAGE plpgsql AS $$
  DECLARE
    partner record;
    change record;
    window_from timestamptz;
    counted_kes numeric;
  BEGIN
    FOR partner IN
      SELECT c.partner_id, min(c.bucket_start) FILTER (WHERE c.change_kes > 0) AS first_added_bucket
        FROM unnest(partner_ids, bucket_starts, changes_kes) AS c(partner_id, bucket_start, change_kes)
       GROUP BY c.partner_id ORDER BY c.partner_id
    LOOP
      SELECT w.counted_from INTO window_from FROM cap_windows w WHERE w.partner_id = partner.partner_id FOR UPDATE;
      IF NOT FOUND THEN
        CONTINUE WHEN partner.first_added_bucket IS NULL;
        INSERT INTO cap_windows (partner_id, open_kes, counted_from)
        VALUES (partner.partner_id, 0, partner.first_added_bucket - interval '24 hours')
        ON CONFLICT (partner_id) DO NOTHING;
        SELECT w.counted_from INTO STRICT window_from FROM cap_windows w WHERE w.partner_id = partner.partner_id FOR UPDATE;
      END IF;
      -- The window row is locked: no other writer touches this partner's buckets meanwhile.${applyChanges}
      SELECT coalesce(sum(c.change_kes), 0) INTO counted_kes
        FROM unnest(partner_ids, bucket_starts, changes_kes) AS c(partner_id, bucket_start, change_kes)
       WHERE c.partner_id = partner.partner_id AND c.bucket_start >= window_from;
      IF counted_kes <> 0 THEN
        UPDATE cap_windows SET open_kes = open_kes + counted_kes WHERE partner_id = partner.partner_id;
      END IF;
    END LOOP;
  END $$`;
}

const COUNT_CHANGES_BY_KEY = countChanges(`
      FOR change IN
        SELECT c.bucket_start, sum(c.change_kes) AS change_kes
          FROM unnest(partner_ids, bucket_starts, changes_kes) AS c(partner_id, bucket_start, change_kes)
         WHERE c.partner_id = partner.partner_id AND c.bucket_start >= window_from
         GROUP BY c.bucket_start HAVING sum(c.change_kes) <> 0 ORDER BY c.bucket_start
      LOOP
        IF change.change_kes > 0 THEN
          INSERT INTO cap_usage_buckets AS b (partner_id, bucket_start, reserved_kes)
          VALUES (partner.partner_id, change.bucket_start, change.change_kes)
          ON CONFLICT (partner_id, bucket_start) DO UPDATE SET reserved_kes = b.reserved_kes + excluded.reserved_kes;
        ELSE
          UPDATE cap_usage_buckets b SET reserved_kes = b.reserved_kes + change.change_kes
           WHERE b.partner_id = partner.partner_id AND b.bucket_start = change.bucket_start;
          IF NOT FOUND THEN
            -- Nothing to take it from: this negative bucket fails its check, as the buckets no longer match the usages.
            INSERT INTO cap_usage_buckets (partner_id, bucket_start, reserved_kes)
            VALUES (partner.partner_id, change.bucket_start, change.change_kes);
          END IF;
        END IF;
      END LOOP;`);

/** As CapWindowsMigration1732710000000 wrote it: what `down` restores. */
const COUNT_CHANGES_BY_JOIN = countChanges(`
      WITH changes AS (
        SELECT c.bucket_start, sum(c.change_kes) AS change_kes
          FROM unnest(partner_ids, bucket_starts, changes_kes) AS c(partner_id, bucket_start, change_kes)
         WHERE c.partner_id = partner.partner_id AND c.bucket_start >= window_from
         GROUP BY c.bucket_start HAVING sum(c.change_kes) <> 0
      ), changed AS (
        UPDATE cap_usage_buckets b SET reserved_kes = b.reserved_kes + changes.change_kes
          FROM changes WHERE b.partner_id = partner.partner_id AND b.bucket_start = changes.bucket_start
        RETURNING b.bucket_start
      )
      INSERT INTO cap_usage_buckets (partner_id, bucket_start, reserved_kes)
      SELECT partner.partner_id, changes.bucket_start, changes.change_kes FROM changes
       WHERE changes.bucket_start NOT IN (SELECT changed.bucket_start FROM changed);`);

/** Locked by its primary key alone, then checked: no other index can serve the read. */
const CONSUME_QUOTE_BY_KEY = `
    SELECT q.consumed_at IS NULL AND q.expires_at > now() INTO quote_usable
      FROM quotes q WHERE q.quote_id = o.quote_id AND q.partner_id = o.partner_id FOR UPDATE;
    IF quote_usable THEN
      UPDATE quotes q SET consumed_at = now() WHERE q.quote_id = o.quote_id;
    END IF;
    IF NOT coalesce(quote_usable, false) THEN`;

/** As CapReserveOneStatementMigration1796900000000 wrote it: what `down` restores. */
const CONSUME_QUOTE_BY_CONDITIONS = `
    UPDATE quotes q SET consumed_at = now()
     WHERE q.quote_id = o.quote_id AND q.partner_id = o.partner_id AND q.consumed_at IS NULL AND q.expires_at > now();
    IF NOT FOUND THEN`;

/** trading_place_order as CapReserveOneStatementMigration1796900000000 wrote it, with the quote consumed by `consumeQuote`. */
function placeOrder(consumeQuote: string): string {
  return `
  CREATE OR REPLACE FUNCTION trading_place_order(p_order jsonb, p_lock_key text, p_cap_kes numeric, p_now timestamptz)
  RETURNS TABLE (outcome text, placed orders)
  LANGUAGE plpgsql AS $$
  DECLARE
    o orders := jsonb_populate_record(NULL::orders, p_order);
    found_order orders;
    reservation text;
    quote_usable boolean;
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_lock_key, 0));
    SELECT * INTO found_order FROM orders x WHERE x.partner_id = o.partner_id AND x.partner_reference = o.partner_reference;
    IF FOUND THEN
      RETURN QUERY SELECT 'replay', found_order;
      RETURN;
    END IF;
    SELECT r.outcome INTO STRICT reservation
      FROM cap_reserve(o.order_id, o.partner_id, 'order', p_cap_kes, 'KES', p_cap_kes, p_now, true) r;
    IF reservation <> 'reserved' THEN
      RETURN QUERY SELECT reservation, NULL::orders;
      RETURN;
    END IF;${consumeQuote}
      -- The usage just counted goes (its trigger takes it out of its bucket): a refusal leaves nothing.
      DELETE FROM cap_usages c WHERE c.usage_id = o.order_id;
      RETURN QUERY SELECT 'quote_unavailable', NULL::orders;
      RETURN;
    END IF;
    INSERT INTO orders (order_id, partner_id, partner_reference, quote_id, side, funding_mode, status, kes_amount, usdt_amount, rate,
                        fee_kes, fee_bps, fee_flat_kes, fee_cap_kes, kes_total_amount, expires_at, kes_debit_status, debit_outcome,
                        deposit_address, send_before, payout_account_id, next_action_at, wallet_id, payment_reference, paybill,
                        beneficiary_name, pay_before)
    VALUES (o.order_id, o.partner_id, o.partner_reference, o.quote_id, o.side, o.funding_mode, o.status, o.kes_amount, o.usdt_amount,
            o.rate, o.fee_kes, o.fee_bps, o.fee_flat_kes, o.fee_cap_kes, o.kes_total_amount, o.expires_at, o.kes_debit_status,
            o.debit_outcome, o.deposit_address, o.send_before, o.payout_account_id, o.next_action_at, o.wallet_id,
            o.payment_reference, o.paybill, o.beneficiary_name, o.pay_before)
    RETURNING * INTO STRICT found_order;
    RETURN QUERY SELECT 'placed', found_order;
  END $$`;
}
