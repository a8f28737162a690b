import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The statement-lines trigger on postings, doing the same with less: the
 * lines it writes are exactly those of the version it replaces (same source,
 * amount, available_after, resource and clock rule), read and written in
 * fewer steps, because it runs for every posting of every entry.
 *
 * - It reads the account's partner and held amount only, and stops there for
 *   an account without a partner (treasury, fees), as before.
 * - It reads the account's last line once, not once per line it may write:
 *   the line it has just written is the last one (the account row is locked
 *   by the entry, so no other writer can append meanwhile).
 * - It looks for the hold this entry posted only when a hold-release line is
 *   due (the available balance before the posting differs from the last
 *   line's), rather than for every posting of a partner account.
 *
 * statement_append stays: the holds trigger still calls it.
 */
export class LedgerStatementLinesOneReadMigration1796000000002 implements MigrationInterface {
  name = 'LedgerStatementLinesOneReadMigration1796000000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION statement_on_posting() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        acct_partner uuid;
        acct_held numeric;
        last_available numeric;
        last_at timestamptz;
        available_before numeric;
        available_after numeric;
        released_hold uuid;
      BEGIN
        SELECT a.partner_id, a.held INTO acct_partner, acct_held FROM accounts a WHERE a.id = NEW.account_id;
        IF acct_partner IS NULL THEN
          RETURN NULL;
        END IF;
        SELECT l.available_after, l.created_at INTO last_available, last_at FROM statement_lines l
         WHERE l.account_id = NEW.account_id ORDER BY l.created_at DESC, l.id DESC LIMIT 1;
        last_available := coalesce(last_available, 0);
        available_before := NEW.balance_after - NEW.amount - acct_held;
        available_after := NEW.balance_after - acct_held;
        -- A hold posted by this entry was released just before it: its line comes first.
        IF available_before <> last_available THEN
          SELECT h.id INTO released_hold FROM entries e JOIN holds h
              ON e.metadata->>'holdId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
             AND h.id = (e.metadata->>'holdId')::uuid AND h.account_id = NEW.account_id
           WHERE e.id = NEW.entry_id;
          last_at := greatest(clock_timestamp(), coalesce(last_at + interval '1 microsecond', clock_timestamp()));
          INSERT INTO statement_lines (account_id, source, entry_id, hold_id, amount, available_after, created_at)
          VALUES (NEW.account_id, 'hold_released', NULL, released_hold, available_before - last_available,
                  available_before, last_at);
          last_available := available_before;
        END IF;
        IF available_after <> last_available THEN
          INSERT INTO statement_lines (account_id, source, entry_id, hold_id, amount, available_after, created_at)
          VALUES (NEW.account_id, 'posting', NEW.entry_id, NULL, available_after - last_available, available_after,
                  greatest(clock_timestamp(), coalesce(last_at + interval '1 microsecond', clock_timestamp())));
        END IF;
        RETURN NULL;
      END $$`);
  }

  /** The version of LedgerStatementLinesMigration1796000000000. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION statement_on_posting() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        acct accounts%ROWTYPE;
        released_hold uuid;
      BEGIN
        SELECT * INTO acct FROM accounts WHERE id = NEW.account_id;
        IF acct.partner_id IS NULL THEN
          RETURN NULL;
        END IF;
        SELECT h.id INTO released_hold FROM entries e JOIN holds h
            ON e.metadata->>'holdId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
           AND h.id = (e.metadata->>'holdId')::uuid AND h.account_id = NEW.account_id
         WHERE e.id = NEW.entry_id;
        PERFORM statement_append(NEW.account_id, 'hold_released', NULL, released_hold, NEW.balance_after - NEW.amount - acct.held);
        PERFORM statement_append(NEW.account_id, 'posting', NEW.entry_id, NULL, NEW.balance_after - acct.held);
        RETURN NULL;
      END $$`);
  }
}
