import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Statements: one line for every change of a partner account's available
 * balance (posted − held), each with the available balance right after it.
 *
 * Why a table of its own rather than the postings: a posting carries the
 * account's posted balance after it, but not its held amount, and holds move
 * `available` without any posting. Recomputing held at a point in time means
 * summing every hold open then, which grows with history; a line that stores
 * `available_after` when the balance moves makes a statement page one index
 * range read, whatever the account's history.
 *
 * The lines are written by triggers on postings and holds, in the transaction
 * (and under the account row lock) of the change itself, so every writer, of
 * this release or the one before it during a rolling deploy, produces them.
 * Each line's amount is its available_after minus the previous line's: the
 * lines chain exactly by construction, and over any window their amounts sum
 * to the change of the available balance. A posting of a hold (PostHold)
 * releases the hold before it posts; that release has no row of its own yet
 * when the posting is inserted, so the posting's trigger writes it first (the
 * later status change of the hold then finds nothing left to record).
 *
 * created_at is the clock at the write, made strictly increasing per account
 * (a microsecond past the previous line when the clock has not moved on), so
 * (created_at, id) orders an account's lines exactly as they were applied.
 *
 * Accounts keep their balance from before this migration as one
 * `opening_balance` line; the accounts table is locked meanwhile so no change
 * slips between that line and the triggers.
 */
export class LedgerStatementLinesMigration1796000000000 implements MigrationInterface {
  name = 'LedgerStatementLinesMigration1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('LOCK TABLE accounts IN EXCLUSIVE MODE');
    await queryRunner.query(`
      CREATE TABLE statement_lines (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts (id),
        source text NOT NULL CHECK (source IN ('opening_balance', 'posting', 'hold_placed', 'hold_released')),
        entry_id uuid REFERENCES entries (id),
        hold_id uuid REFERENCES holds (id),
        amount numeric(30, 6) NOT NULL CHECK (amount <> 0),
        available_after numeric(30, 6) NOT NULL,
        created_at timestamptz NOT NULL,
        CHECK ((source = 'posting') = (entry_id IS NOT NULL))
      );
      CREATE INDEX statement_lines_account_time_idx ON statement_lines (account_id, created_at DESC, id DESC);
      CREATE INDEX kes_credits_entry_idx ON kes_credits (entry_id);
      CREATE TRIGGER statement_lines_immutable BEFORE UPDATE OR DELETE ON statement_lines FOR EACH ROW EXECUTE FUNCTION refuse_change();

      -- Appends the line that brings the account's statement to available_after;
      -- nothing when the balance did not move since the last line.
      CREATE FUNCTION statement_append(p_account uuid, p_source text, p_entry uuid, p_hold uuid, p_available_after numeric) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        last_available numeric;
        last_at timestamptz;
      BEGIN
        SELECT l.available_after, l.created_at INTO last_available, last_at FROM statement_lines l
         WHERE l.account_id = p_account ORDER BY l.created_at DESC, l.id DESC LIMIT 1;
        IF p_available_after = coalesce(last_available, 0) THEN
          RETURN;
        END IF;
        INSERT INTO statement_lines (account_id, source, entry_id, hold_id, amount, available_after, created_at)
        VALUES (p_account, p_source, p_entry, p_hold, p_available_after - coalesce(last_available, 0), p_available_after,
                greatest(clock_timestamp(), coalesce(last_at + interval '1 microsecond', clock_timestamp())));
      END $$;

      CREATE FUNCTION statement_on_posting() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        acct accounts%ROWTYPE;
        released_hold uuid;
      BEGIN
        SELECT * INTO acct FROM accounts WHERE id = NEW.account_id;
        IF acct.partner_id IS NULL THEN
          RETURN NULL;
        END IF;
        -- A hold posted by this entry was released just before it: its line comes first.
        SELECT h.id INTO released_hold FROM entries e JOIN holds h
            ON e.metadata->>'holdId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
           AND h.id = (e.metadata->>'holdId')::uuid AND h.account_id = NEW.account_id
         WHERE e.id = NEW.entry_id;
        PERFORM statement_append(NEW.account_id, 'hold_released', NULL, released_hold, NEW.balance_after - NEW.amount - acct.held);
        PERFORM statement_append(NEW.account_id, 'posting', NEW.entry_id, NULL, NEW.balance_after - acct.held);
        RETURN NULL;
      END $$;
      CREATE TRIGGER postings_statement AFTER INSERT ON postings FOR EACH ROW EXECUTE FUNCTION statement_on_posting();

      -- held has already moved when the hold row is inserted or resolved (the holds repository's order).
      CREATE FUNCTION statement_on_hold() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        acct accounts%ROWTYPE;
      BEGIN
        SELECT * INTO acct FROM accounts WHERE id = NEW.account_id;
        IF acct.partner_id IS NULL THEN
          RETURN NULL;
        END IF;
        PERFORM statement_append(NEW.account_id, CASE WHEN TG_OP = 'INSERT' THEN 'hold_placed' ELSE 'hold_released' END,
                                 NULL, NEW.id, acct.posted - acct.held);
        RETURN NULL;
      END $$;
      CREATE TRIGGER holds_statement_placed AFTER INSERT ON holds FOR EACH ROW EXECUTE FUNCTION statement_on_hold();
      CREATE TRIGGER holds_statement_resolved AFTER UPDATE OF status ON holds FOR EACH ROW
        WHEN (OLD.status = 'pending' AND NEW.status <> 'pending') EXECUTE FUNCTION statement_on_hold();

      INSERT INTO statement_lines (account_id, source, amount, available_after, created_at)
      SELECT id, 'opening_balance', posted - held, posted - held, now() FROM accounts
       WHERE partner_id IS NOT NULL AND posted - held <> 0;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER holds_statement_resolved ON holds; DROP TRIGGER holds_statement_placed ON holds; DROP TRIGGER postings_statement ON postings;
      DROP FUNCTION statement_on_hold(); DROP FUNCTION statement_on_posting(); DROP FUNCTION statement_append(uuid, text, uuid, uuid, numeric);
      DROP INDEX kes_credits_entry_idx; DROP TABLE statement_lines;
    `);
  }
}
