import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The daily cap's reservation, and an order's whole creation, each one
 * statement, so no lock waits on a round trip to the service.
 *
 * Before, a reservation locked the partner's profile row, then its cap window,
 * in statements of their own, and an order held both across seven round trips
 * (lock, twin read, caps, window, maybe an advance, usage, quote, order,
 * commit): every order of one partner queued behind the one in flight for as
 * long as the service took to answer each of them.
 *
 * - cap_window_lock(partner, now): locks the partner's cap window row (creating
 *   it, empty, when the partner has none yet: the row is then the lock even
 *   for a partner's first usage) and moves it to the minute `now` counts at;
 *   answers that time and the KES in use (used_kes). The same rules as
 *   domain/cap-window.ts (capUsageTime, capWindowStart).
 * - cap_reserve(usage…, now, fresh): the reservation, serialised on the window
 *   row alone. The profile row is read, not locked: the window row already
 *   serialises every reservation and release of the partner, and a daily cap
 *   changed meanwhile applies from the next reservation on, as it did when the
 *   change waited for the lock. Outcomes: 'reserved' (the new usage),
 *   'existing' (a usage with this id: the caller compares bodies),
 *   'exceeded' (used + amount > cap: equal passes, as assertWithinDailyCap),
 *   'partner_not_found'. Nothing is written but the window's move on a refusal.
 * - trading_place_order(order, lockKey, capKes, now): serialised per partnerReference
 *   (the advisory lock the previous release takes too), the twin read after
 *   the lock, the cap reserved (usage id = order id), the quote consumed, the
 *   order inserted. Outcomes: 'placed' or 'replay' (with the order),
 *   'quote_unavailable', 'exceeded', 'partner_not_found'; a refusal leaves no
 *   usage, no consumed quote and no order. The cap window stays locked only
 *   from the reservation to the end of this one statement.
 *
 * A volatile PL/pgSQL function reads with a fresh snapshot per statement, so
 * the twin reads see whatever committed while the locks were awaited.
 *
 * Lock order: the order's advisory lock, then the cap window row, then the
 * quote (and then the buckets, in the cap_usages triggers). During a rolling
 * deploy the previous release locks partner_profiles then the window: it never
 * waits for the profile while holding the window, and this release never
 * locks the profile, so the two cannot deadlock; both serialise on the window.
 */
export class CapReserveOneStatementMigration1796900000000 implements MigrationInterface {
  name = 'CapReserveOneStatementMigration1796900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(CAP_WINDOW_LOCK_FUNCTION);
    await queryRunner.query(CAP_RESERVE_FUNCTION);
    await queryRunner.query(PLACE_ORDER_FUNCTION);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION trading_place_order(jsonb, text, numeric, timestamptz)');
    await queryRunner.query(
      'DROP FUNCTION cap_reserve(uuid, uuid, text, numeric, text, numeric, timestamptz, boolean)',
    );
    await queryRunner.query('DROP FUNCTION cap_window_lock(uuid, timestamptz)');
  }
}

const CAP_WINDOW_LOCK_FUNCTION = `
  CREATE FUNCTION cap_window_lock(p_partner_id uuid, p_now timestamptz, OUT usage_time timestamptz, OUT used_kes numeric)
  LANGUAGE plpgsql AS $$
  DECLARE
    window_from timestamptz;
    moved_from timestamptz;
  BEGIN
    SELECT w.counted_from, w.open_kes INTO window_from, used_kes FROM cap_windows w WHERE w.partner_id = p_partner_id FOR UPDATE;
    IF NOT FOUND THEN
      -- As the insert trigger would create it for this first usage: 24 hours before its minute.
      INSERT INTO cap_windows (partner_id, open_kes, counted_from)
      VALUES (p_partner_id, 0, cap_bucket_start(p_now) - interval '24 hours')
      ON CONFLICT (partner_id) DO NOTHING;
      SELECT w.counted_from, w.open_kes INTO STRICT window_from, used_kes
        FROM cap_windows w WHERE w.partner_id = p_partner_id FOR UPDATE;
    END IF;
    -- A clock behind the window counts at the window's latest minute; the window only moves forward.
    usage_time := greatest(p_now, window_from + interval '24 hours');
    moved_from := cap_bucket_start(usage_time) - interval '24 hours';
    IF moved_from > window_from THEN
      WITH expired AS (
        DELETE FROM cap_usage_buckets b
         WHERE b.partner_id = p_partner_id AND b.bucket_start >= window_from AND b.bucket_start < moved_from
        RETURNING b.reserved_kes
      )
      UPDATE cap_windows w SET open_kes = w.open_kes - (SELECT coalesce(sum(e.reserved_kes), 0) FROM expired e),
                               counted_from = moved_from
       WHERE w.partner_id = p_partner_id
      RETURNING w.open_kes INTO STRICT used_kes;
    END IF;
  END $$`;

const CAP_RESERVE_FUNCTION = `
  CREATE FUNCTION cap_reserve(p_usage_id uuid, p_partner_id uuid, p_source text, p_amount_kes numeric,
                              p_given_currency text, p_given_amount numeric, p_now timestamptz, p_fresh boolean)
  RETURNS TABLE (outcome text, counted cap_usages)
  LANGUAGE plpgsql AS $$
  DECLARE
    daily_cap numeric;
    opened record;
    found_usage cap_usages;
  BEGIN
    SELECT p.daily_cap_kes INTO daily_cap FROM partner_profiles p WHERE p.partner_id = p_partner_id;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'partner_not_found', NULL::cap_usages;
      RETURN;
    END IF;
    SELECT * INTO STRICT opened FROM cap_window_lock(p_partner_id, p_now);
    IF NOT p_fresh THEN
      -- Under the lock: a concurrent twin with the same usage id may have just committed.
      SELECT * INTO found_usage FROM cap_usages c WHERE c.usage_id = p_usage_id;
      IF FOUND THEN
        RETURN QUERY SELECT 'existing', found_usage;
        RETURN;
      END IF;
    END IF;
    IF opened.used_kes + p_amount_kes > daily_cap THEN
      RETURN QUERY SELECT 'exceeded', NULL::cap_usages;
      RETURN;
    END IF;
    INSERT INTO cap_usages (usage_id, partner_id, source, amount_kes, given_currency, given_amount, created_at)
    VALUES (p_usage_id, p_partner_id, p_source, p_amount_kes, p_given_currency, p_given_amount, opened.usage_time)
    ON CONFLICT (usage_id) DO NOTHING
    RETURNING * INTO found_usage;
    IF FOUND THEN
      RETURN QUERY SELECT 'reserved', found_usage;
      RETURN;
    END IF;
    -- Another partner's window let a usage with this id in first: the caller compares bodies.
    SELECT * INTO STRICT found_usage FROM cap_usages c WHERE c.usage_id = p_usage_id;
    RETURN QUERY SELECT 'existing', found_usage;
  END $$`;

const PLACE_ORDER_FUNCTION = `
  CREATE FUNCTION trading_place_order(p_order jsonb, p_lock_key text, p_cap_kes numeric, p_now timestamptz)
  RETURNS TABLE (outcome text, placed orders)
  LANGUAGE plpgsql AS $$
  DECLARE
    o orders := jsonb_populate_record(NULL::orders, p_order);
    found_order orders;
    reservation text;
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
    END IF;
    UPDATE quotes q SET consumed_at = now()
     WHERE q.quote_id = o.quote_id AND q.partner_id = o.partner_id AND q.consumed_at IS NULL AND q.expires_at > now();
    IF NOT FOUND THEN
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
