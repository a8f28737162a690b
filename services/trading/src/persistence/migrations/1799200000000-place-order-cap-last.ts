import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * trading_place_order takes the partner's cap window lock last, with only the
 * reservation under it.
 *
 * Every order of one partner serialises on that partner's cap_windows row,
 * and a row lock lasts until its transaction ends. Before, the placement
 * locked the row first and then, still holding it, consumed the quote and
 * inserted the order (a heap row and eight index entries): the next order of
 * the partner waited for all of that. Now everything that does not need the
 * partner's lock comes before it:
 *
 * 1. the partnerReference's advisory lock and the twin read ('replay');
 * 2. the daily cap read from the profile ('partner_not_found');
 * 3. the cap checked against the window as committed, read without a lock
 *    ('exceeded'): a refusal at the cap neither waits for the partner's lock
 *    nor writes anything (it used to move the window);
 * 4. the quote locked by its primary key and checked ('quote_unavailable'),
 *    then consumed, and the order inserted;
 * 5. last, cap_reserve (the one reservation orders, transfers and USDT sends
 *    share): the window row locked, moved, the cap checked again, the usage
 *    inserted (its trigger adds it to its minute and the window total). Only
 *    this step and the commit hold the partner's row.
 *
 * The cap stays exact: a usage is only ever admitted under the window lock
 * (step 5), with the same rules and the same granularity as before. Step 3
 * only refuses early: when it let an order through and a reservation of the
 * partner committed meanwhile took the room, step 5 answers 'exceeded', and
 * the order is deleted and its quote given back in the same statement, so a
 * refusal still leaves no usage, no consumed quote and no order. The outcomes
 * and their order are unchanged: replay, partner_not_found, exceeded,
 * quote_unavailable, placed. Only when two refusals race does the answer
 * follow the window as committed at step 3 rather than after the lock.
 *
 * Lock order: the advisory lock, the quote, then the cap window (and the
 * buckets after it, in the cap_usages triggers). The only writer that takes
 * a window before a quote is a debit-first order's undo (release the usage,
 * delete the order, give its quote back): it waits for a quote that a
 * committed order consumed, and a placement holds a quote while it waits for
 * the window only when it found that quote unconsumed, so never that one.
 * A placement that finds its quote unusable refuses without taking the
 * window. A replica of the previous release calls the same function and gets
 * the same results (the signature and result type are the same), and the
 * function keeps its generic plans (PlaceOrderGenericPlansMigration1798100000000).
 */
export class PlaceOrderCapLastMigration1799200000000 implements MigrationInterface {
  name = 'PlaceOrderCapLastMigration1799200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(PLACE_ORDER_CAP_LAST);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(PLACE_ORDER_CAP_FIRST);
  }
}

/** The twin read under the reference's lock: the order already made answers the call. */
const REPLAY = `
    PERFORM pg_advisory_xact_lock(hashtextextended(p_lock_key, 0));
    SELECT * INTO found_order FROM orders x WHERE x.partner_id = o.partner_id AND x.partner_reference = o.partner_reference;
    IF FOUND THEN
      RETURN QUERY SELECT 'replay', found_order;
      RETURN;
    END IF;`;

/** The quote locked by its primary key alone, then checked: no other index can serve the read. */
const QUOTE_USABLE = `
    SELECT q.consumed_at IS NULL AND q.expires_at > now() INTO quote_usable
      FROM quotes q WHERE q.quote_id = o.quote_id AND q.partner_id = o.partner_id FOR UPDATE;`;

const INSERT_ORDER = `
    INSERT INTO orders (order_id, partner_id, partner_reference, quote_id, side, funding_mode, status, kes_amount, usdt_amount, rate,
                        fee_kes, fee_bps, fee_flat_kes, fee_cap_kes, kes_total_amount, expires_at, kes_debit_status, debit_outcome,
                        deposit_address, send_before, payout_account_id, next_action_at, wallet_id, payment_reference, paybill,
                        beneficiary_name, pay_before)
    VALUES (o.order_id, o.partner_id, o.partner_reference, o.quote_id, o.side, o.funding_mode, o.status, o.kes_amount, o.usdt_amount,
            o.rate, o.fee_kes, o.fee_bps, o.fee_flat_kes, o.fee_cap_kes, o.kes_total_amount, o.expires_at, o.kes_debit_status,
            o.debit_outcome, o.deposit_address, o.send_before, o.payout_account_id, o.next_action_at, o.wallet_id,
            o.payment_reference, o.paybill, o.beneficiary_name, o.pay_before)
    RETURNING * INTO STRICT found_order;`;

/** The signature, result type and setting every release of the function has. */
const PLACE_ORDER_HEAD = `
  CREATE OR REPLACE FUNCTION trading_place_order(p_order jsonb, p_lock_key text, p_cap_kes numeric, p_now timestamptz)
  RETURNS TABLE (outcome text, placed orders)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan`;

/** The steps in the header's order; the partner's cap window is locked by the last one only. */
const PLACE_ORDER_CAP_LAST = `${PLACE_ORDER_HEAD}
  AS $$
  DECLARE
    o orders := jsonb_populate_record(NULL::orders, p_order);
    found_order orders;
    daily_cap numeric;
    used_kes numeric;
    quote_usable boolean;
    reservation text;
  BEGIN${REPLAY}
    SELECT p.daily_cap_kes INTO daily_cap FROM partner_profiles p WHERE p.partner_id = o.partner_id;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'partner_not_found', NULL::orders;
      RETURN;
    END IF;
    -- The KES a reservation at p_now would find in use, as committed, without a lock: the window's total less the
    -- minutes cap_window_lock would move out of it (a clock behind the window counts at its latest minute). No window: none.
    SELECT w.open_kes - coalesce((
             SELECT sum(b.reserved_kes) FROM cap_usage_buckets b
              WHERE b.partner_id = w.partner_id AND b.bucket_start >= w.counted_from
                AND b.bucket_start < cap_bucket_start(greatest(p_now, w.counted_from + interval '24 hours')) - interval '24 hours'), 0)
      INTO used_kes FROM cap_windows w WHERE w.partner_id = o.partner_id;
    IF coalesce(used_kes, 0) + p_cap_kes > daily_cap THEN
      RETURN QUERY SELECT 'exceeded', NULL::orders;
      RETURN;
    END IF;${QUOTE_USABLE}
    IF NOT coalesce(quote_usable, false) THEN
      RETURN QUERY SELECT 'quote_unavailable', NULL::orders;
      RETURN;
    END IF;
    UPDATE quotes q SET consumed_at = now() WHERE q.quote_id = o.quote_id;${INSERT_ORDER}
    -- Last: the partner's cap window is locked from here to the commit.
    SELECT r.outcome INTO STRICT reservation
      FROM cap_reserve(o.order_id, o.partner_id, 'order', p_cap_kes, 'KES', p_cap_kes, p_now, true) r;
    IF reservation <> 'reserved' THEN
      -- A reservation committed since the read above took the room: a refusal leaves nothing.
      DELETE FROM orders x WHERE x.order_id = o.order_id;
      UPDATE quotes q SET consumed_at = NULL WHERE q.quote_id = o.quote_id;
      RETURN QUERY SELECT reservation, NULL::orders;
      RETURN;
    END IF;
    RETURN QUERY SELECT 'placed', found_order;
  END $$`;

/** As CapAndQuoteByKeyMigration1797700000000 wrote it (with PlaceOrderGenericPlansMigration1798100000000's setting): what `down` restores. */
const PLACE_ORDER_CAP_FIRST = `${PLACE_ORDER_HEAD}
  AS $$
  DECLARE
    o orders := jsonb_populate_record(NULL::orders, p_order);
    found_order orders;
    reservation text;
    quote_usable boolean;
  BEGIN${REPLAY}
    SELECT r.outcome INTO STRICT reservation
      FROM cap_reserve(o.order_id, o.partner_id, 'order', p_cap_kes, 'KES', p_cap_kes, p_now, true) r;
    IF reservation <> 'reserved' THEN
      RETURN QUERY SELECT reservation, NULL::orders;
      RETURN;
    END IF;${QUOTE_USABLE}
    IF quote_usable THEN
      UPDATE quotes q SET consumed_at = now() WHERE q.quote_id = o.quote_id;
    END IF;
    IF NOT coalesce(quote_usable, false) THEN
      -- The usage just counted goes (its trigger takes it out of its bucket): a refusal leaves nothing.
      DELETE FROM cap_usages c WHERE c.usage_id = o.order_id;
      RETURN QUERY SELECT 'quote_unavailable', NULL::orders;
      RETURN;
    END IF;${INSERT_ORDER}
    RETURN QUERY SELECT 'placed', found_order;
  END $$`;
