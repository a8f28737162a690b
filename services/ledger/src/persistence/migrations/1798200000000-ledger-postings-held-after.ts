import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each posting may say the held amount of its account right after its entry
 * (`held_after`), so a settlement round can write the entries of many holds of
 * one account in ONE statement and still get each posting's statement lines
 * right.
 *
 * The statement-lines trigger on postings runs at the end of the statement
 * that inserted the posting and read the account's held amount then: right
 * when a statement writes one entry per account, wrong when it writes several
 * entries on one account (every posting would see the held amount after the
 * last one). With `held_after` written, the trigger takes it from the posting
 * and no longer reads the account row at all; a posting written without it (a
 * replica of the previous release during a rolling deploy, rows from before)
 * is handled as before. The lines written are the same either way.
 *
 * A hold resolved as posted no longer runs the holds trigger: the posting of
 * its entry, written before the resolution, has already written its release
 * line (the trigger then always found nothing left to record, at the cost of
 * an account read and a line read per posted hold). Voids and expiries still
 * run it: they move the balance without a posting.
 *
 * The column is nullable without a default: no table rewrite.
 */
const HELD_BY_READ = `
        SELECT a.partner_id, a.held INTO acct_partner, acct_held FROM accounts a WHERE a.id = NEW.account_id;
        IF acct_partner IS NULL THEN
          RETURN NULL;
        END IF;`;

const HELD_FROM_POSTING = `
        IF NEW.held_after IS NOT NULL AND NEW.for_partner THEN
          acct_held := NEW.held_after;
        ELSE${HELD_BY_READ.replace(/\n {8}/g, '\n          ')}
        END IF;`;

/** statement_on_posting as LedgerStatementTriggerPartnerPostingsMigration1797000000001 wrote it, held found by `heldSql`. */
function statementOnPosting(heldSql: string): string {
  return `
      CREATE OR REPLACE FUNCTION statement_on_posting() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        acct_partner uuid;
        acct_held numeric;
        last_available numeric;
        last_at timestamptz;
        available_before numeric;
        available_after numeric;
        released_hold uuid;
        hold_text text;
      BEGIN${heldSql}
        SELECT l.available_after, l.created_at INTO last_available, last_at FROM statement_lines l
         WHERE l.account_id = NEW.account_id ORDER BY l.created_at DESC, l.id DESC LIMIT 1;
        last_available := coalesce(last_available, 0);
        available_before := NEW.balance_after - NEW.amount - acct_held;
        available_after := NEW.balance_after - acct_held;
        -- A hold posted by this entry was released just before it: its line comes first.
        IF available_before <> last_available THEN
          SELECT e.metadata->>'holdId' INTO hold_text FROM entries e WHERE e.id = NEW.entry_id;
          IF hold_text ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
            SELECT h.id INTO released_hold FROM holds h WHERE h.id = hold_text::uuid AND h.account_id = NEW.account_id;
          END IF;
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
      END $$`;
}

/** How long a DDL statement here may wait for its table's lock before the migration fails. */
const LOCK_TIMEOUT = '5s';

export class LedgerPostingsHeldAfterMigration1798200000000 implements MigrationInterface {
  name = 'LedgerPostingsHeldAfterMigration1798200000000';

  /**
   * Holds first, then postings: the order PostHold locks them in, so the migration's ACCESS
   * EXCLUSIVE locks cannot deadlock against a post in flight. The lock timeout (this
   * migration's transaction only) fails the migration fast on a busy table, to be rerun,
   * instead of queueing every posting behind it while it waits.
   */
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    await queryRunner.query(`
      DROP TRIGGER holds_statement_resolved ON holds;
      CREATE TRIGGER holds_statement_resolved AFTER UPDATE OF status ON holds FOR EACH ROW
        WHEN (OLD.status = 'pending' AND NEW.status IN ('voided', 'expired')) EXECUTE FUNCTION statement_on_hold();
      ALTER TABLE postings ADD COLUMN held_after numeric(30, 6);
    `);
    await queryRunner.query(statementOnPosting(HELD_FROM_POSTING));
  }

  /** Holds, then postings, under the same lock timeout, as up. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    await queryRunner.query(statementOnPosting(HELD_BY_READ));
    await queryRunner.query(`
      DROP TRIGGER holds_statement_resolved ON holds;
      CREATE TRIGGER holds_statement_resolved AFTER UPDATE OF status ON holds FOR EACH ROW
        WHEN (OLD.status = 'pending' AND NEW.status <> 'pending') EXECUTE FUNCTION statement_on_hold();
      ALTER TABLE postings DROP COLUMN held_after;
    `);
  }
}
