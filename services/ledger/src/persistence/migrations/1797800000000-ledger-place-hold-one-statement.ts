import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A hold placed in ONE statement (HoldsRepository.placeOrFind): the placement
 * of the id serialised, the existing hold answered, else the account locked,
 * the amount's scale, the expiry and the available balance checked, held
 * raised and the hold inserted. Called alone, it is its own transaction: the
 * account row stays locked from the lock to that commit only, instead of
 * across BEGIN, five statements and COMMIT with a round trip to the ledger
 * process between each (orders of one partner queued on their KES account for
 * all of them). The request's other checks stay in the use case, before the call.
 *
 * Outcomes: placed, existing (the hold already under the id, whatever its
 * request), account_not_found, bad_amount (more decimals than the account's
 * currency takes), expires_in_past (the caller's clock judged it: only a new
 * hold must expire in the future), insufficient_funds. Nothing is written
 * unless placed.
 */
export class LedgerPlaceHoldOneStatementMigration1797800000000 implements MigrationInterface {
  name = 'LedgerPlaceHoldOneStatementMigration1797800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION ledger_place_hold(
        p_hold_id uuid, p_account_id uuid, p_amount numeric, p_scales jsonb, p_expires_at timestamptz,
        p_expires_in_past boolean, p_metadata jsonb, p_request_hash text, p_owner text
      ) RETURNS TABLE (outcome text, hold holds)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        found_hold holds;
        account record;
      BEGIN
        -- The same key as every other placement of this id: twins queue here, the second finds the first's hold.
        PERFORM pg_advisory_xact_lock(hashtextextended('hold:' || p_hold_id::text, 0));
        SELECT * INTO found_hold FROM holds WHERE id = p_hold_id;
        IF FOUND THEN
          RETURN QUERY SELECT 'existing'::text, found_hold;
          RETURN;
        END IF;
        SELECT id, currency, posted, held, allow_negative INTO account FROM accounts WHERE id = p_account_id FOR UPDATE;
        IF NOT FOUND THEN
          RETURN QUERY SELECT 'account_not_found'::text, NULL::holds;
          RETURN;
        END IF;
        IF scale(p_amount) > (p_scales ->> account.currency)::int THEN
          RETURN QUERY SELECT 'bad_amount'::text, NULL::holds;
          RETURN;
        END IF;
        IF p_expires_in_past THEN
          RETURN QUERY SELECT 'expires_in_past'::text, NULL::holds;
          RETURN;
        END IF;
        IF NOT account.allow_negative AND account.posted - account.held < p_amount THEN
          RETURN QUERY SELECT 'insufficient_funds'::text, NULL::holds;
          RETURN;
        END IF;
        UPDATE accounts SET held = held + p_amount WHERE id = p_account_id;
        INSERT INTO holds (id, account_id, currency, amount, expires_at, metadata, request_hash, owner)
        VALUES (p_hold_id, p_account_id, account.currency, p_amount, p_expires_at, p_metadata, p_request_hash, p_owner)
        RETURNING * INTO found_hold;
        RETURN QUERY SELECT 'placed'::text, found_hold;
      END
      $fn$;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'DROP FUNCTION ledger_place_hold(uuid, uuid, numeric, jsonb, timestamptz, boolean, jsonb, text, text)',
    );
  }
}
