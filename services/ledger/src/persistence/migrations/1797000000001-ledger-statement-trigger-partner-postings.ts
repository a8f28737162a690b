import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The statement-lines trigger on postings runs for partner accounts' postings only.
 *
 * A settlement has five postings, three of them to service accounts (treasury,
 * fee revenue), and the trigger ran for each, reading the account row only to
 * learn it has no partner and stop. Each posting now says whether its account
 * is a partner's (`for_partner`, written by the entry's statement from the row
 * it has just updated), and the trigger's WHEN clause skips the others without
 * calling the function. The function itself is unchanged, so the lines written
 * are exactly those written before.
 *
 * The column is nullable without a default (no table rewrite): rows written
 * before, or by a replica of the previous release during a rolling deploy,
 * have NULL, and the trigger runs for them as before.
 *
 * The function finds the hold a settlement posted (for its hold_released line)
 * by two primary-key reads, the entry's then the hold's, instead of one join on
 * an expression of the entry's metadata: planned inside the function, that join
 * read the whole holds table once per settlement (one sequential scan of holds
 * per order in the bench: a table that grows with every order ever placed).
 * Same hold found, same lines.
 */
/** The hold this entry posted, on the posting's account: the version of LedgerStatementLinesOneReadMigration1796000000002. */
const RELEASED_HOLD_BY_JOIN = `
          SELECT h.id INTO released_hold FROM entries e JOIN holds h
              ON e.metadata->>'holdId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
             AND h.id = (e.metadata->>'holdId')::uuid AND h.account_id = NEW.account_id
           WHERE e.id = NEW.entry_id;`;

/** The same hold by the entry's primary key, then the hold's. */
const RELEASED_HOLD_BY_KEYS = `
          SELECT e.metadata->>'holdId' INTO hold_text FROM entries e WHERE e.id = NEW.entry_id;
          IF hold_text ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
            SELECT h.id INTO released_hold FROM holds h WHERE h.id = hold_text::uuid AND h.account_id = NEW.account_id;
          END IF;`;

/** statement_on_posting as LedgerStatementLinesOneReadMigration1796000000002 wrote it, with the hold found by `releasedHoldSql`. */
function statementOnPosting(releasedHoldSql: string): string {
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
        IF available_before <> last_available THEN${releasedHoldSql}
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

export class LedgerStatementTriggerPartnerPostingsMigration1797000000001 implements MigrationInterface {
  name = 'LedgerStatementTriggerPartnerPostingsMigration1797000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE postings ADD COLUMN for_partner boolean;
      DROP TRIGGER postings_statement ON postings;
      CREATE TRIGGER postings_statement AFTER INSERT ON postings FOR EACH ROW
        WHEN (NEW.for_partner IS DISTINCT FROM false) EXECUTE FUNCTION statement_on_posting();
    `);
    await queryRunner.query(statementOnPosting(RELEASED_HOLD_BY_KEYS));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER postings_statement ON postings;
      CREATE TRIGGER postings_statement AFTER INSERT ON postings FOR EACH ROW EXECUTE FUNCTION statement_on_posting();
      ALTER TABLE postings DROP COLUMN for_partner;
    `);
    await queryRunner.query(statementOnPosting(RELEASED_HOLD_BY_JOIN));
  }
}
