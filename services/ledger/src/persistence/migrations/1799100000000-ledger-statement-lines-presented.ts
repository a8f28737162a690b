import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each statement line keeps the JSON object the partner receives for it
 * (`presented`), written when the line is, so a statement page is one index
 * range of stored text joined into an array: no join to entries or credits,
 * no formatting, rounding or escaping per line at read.
 *
 * Everything in a line's object is fixed once the line is written (its id,
 * account and currency, type, amounts at the currency's scale, direction,
 * running balance, time and resource id), with one exception: a KES credit's
 * resource id is its kes_credits row's transaction id, and that row is
 * inserted after the credit's entry and its lines, in the same transaction.
 * So the text is written by one BEFORE INSERT OR UPDATE trigger on
 * statement_lines (the only writer of the column, whatever a statement sets),
 * and a kes_credits insert touches the lines of its entry so the trigger
 * writes them again with the credit in view. The statement-lines triggers on
 * postings and holds are untouched: a line written by either, by this release
 * or by a replica of the one before during a rolling deploy, gets its text.
 *
 * The text is NULL where the ledger's code must present the line (an entry
 * kind the type table below does not name, an amount not exact at its
 * currency's scale, a credit row repeated for one entry): the page is then
 * read again as lines, as before. The type and scale tables are this
 * migration's copy of the ledger's (statement-line-type.ts, @platform/money);
 * statement-json.int.spec.ts fails when they part, and a change to either
 * ships with a migration that restates them and writes the lines' text again.
 *
 * Lines stay immutable: only `presented` may change, and only to what the
 * trigger writes. A column added to statement_lines later must be added to
 * the immutable list here, restated whole.
 *
 * Existing lines are written in batches of BACKFILL_BATCH_LINES, each its own
 * transaction, after the schema change commits (so the migration is not one
 * transaction: see `transaction = false`); until a line has its text, a page
 * holding it is read as lines. Stopped midway, the migration runs again from
 * the start: its schema change is written to be repeated, and the backfill
 * passes the lines that have their text. Storage: about 300 bytes per line (a line's
 * object; the 100 lines of a page of KES credits are 29 KB).
 */

/** Entry kind → the line type a posting of that kind reads as: statement-line-type.ts's ENTRY_KIND_TYPES of this date. */
const TYPE_BY_ENTRY_KIND = {
  kes_credit: 'credit',
  usdt_deposit: 'credit',
  usdt_deposit_released: 'credit',
  order_buy: 'order',
  order_buy_settlement: 'order',
  order_buy_pay_in: 'order',
  order_buy_pay_in_settlement: 'order',
  order_sell: 'order',
  order_sell_settlement: 'order',
  order_sell_deposit_returned: 'reversal',
  transfer: 'transfer',
  usdt_send: 'usdt_send',
  collection_credit: 'collection',
};

/** Currency → its decimals: @platform/money's CURRENCY_SCALE of this date. */
const SCALE_BY_CURRENCY = { KES: 2, USDT: 6, USD: 2 };

/** Lines written per backfill transaction: a few hundred KB of text and row locks at a time. */
const BACKFILL_BATCH_LINES = 2000;

/** How long a DDL statement here may wait for its table's lock before the migration fails. */
const LOCK_TIMEOUT = '5s';

const PRESENTATION_SQL = `
      -- The ledger's tables the text is made with, as one constant (compared with the code's by statement-json.int.spec.ts).
      CREATE OR REPLACE FUNCTION statement_line_presentation() RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
        SELECT '${JSON.stringify({ types: TYPE_BY_ENTRY_KIND, scales: SCALE_BY_CURRENCY })}'::jsonb
      $$;

      -- The line's object exactly as the gateway presents it (presentStatementLine: same keys, same order), or NULL
      -- when only the ledger's code can present it. Strings built by concatenation are uuids, currency codes, type
      -- words, decimals and times, which JSON needs no escaping for; the resource id goes through to_json, which
      -- escapes as JSON.stringify does.
      CREATE OR REPLACE FUNCTION statement_line_presented(l statement_lines) RETURNS text LANGUAGE plpgsql STABLE AS $$
      DECLARE
        line_currency text;
        line_scale int;
        entry_kind text;
        entry_metadata jsonb;
        line_type text;
        credit_rows int;
        resource text;
      BEGIN
        SELECT a.currency INTO line_currency FROM accounts a WHERE a.id = l.account_id;
        line_scale := (statement_line_presentation() -> 'scales' ->> line_currency)::int;
        IF l.entry_id IS NOT NULL THEN
          SELECT e.kind, e.metadata INTO entry_kind, entry_metadata FROM entries e WHERE e.id = l.entry_id;
        END IF;
        line_type := CASE WHEN l.source <> 'posting' THEN l.source WHEN entry_kind IS NULL THEN 'adjustment'
                          ELSE statement_line_presentation() -> 'types' ->> entry_kind END;
        IF line_type IS NULL OR line_scale IS NULL OR round(l.amount, line_scale) <> l.amount
           OR round(l.available_after, line_scale) <> l.available_after THEN
          RETURN NULL;
        END IF;
        IF l.source <> 'opening_balance' THEN
          resource := coalesce(entry_metadata->>'orderId', entry_metadata->>'transferId', entry_metadata->>'sendId',
                               entry_metadata->>'collectionId');
          IF resource IS NULL AND l.entry_id IS NOT NULL THEN
            SELECT count(*)::int, min(kc.transaction_id::text) INTO credit_rows, resource
              FROM kes_credits kc WHERE kc.entry_id = l.entry_id;
            IF credit_rows > 1 THEN
              RETURN NULL;
            END IF;
          END IF;
          resource := coalesce(resource, entry_metadata->>'txHash', l.hold_id::text);
        END IF;
        RETURN '{"id":"' || l.id || '","accountId":"' || l.account_id || '","currency":"' || line_currency
          || '","type":"' || line_type || '","amount":"' || round(l.amount, line_scale)
          || '","direction":"' || CASE WHEN l.amount < 0 THEN 'debit' ELSE 'credit' END
          || '","availableAfter":"' || round(l.available_after, line_scale)
          || '","createdAt":"' || to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          || '","resourceId":' || coalesce(to_json(nullif(resource, ''))::text, 'null') || '}';
      END $$;

      CREATE OR REPLACE FUNCTION statement_line_present() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.presented := statement_line_presented(NEW);
        RETURN NEW;
      END $$;

      -- A credit's row names the resource of its entry's lines: they are written again (the trigger above writes
      -- the text whatever the statement sets). Lines are never older than their entry (its created_at is its
      -- transaction's start, theirs the clock at their write), so the account's index finds them without its history.
      CREATE OR REPLACE FUNCTION statement_lines_present_credit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE statement_lines l SET presented = NULL
         WHERE l.account_id = NEW.account_id AND l.entry_id = NEW.entry_id
           AND l.created_at >= (SELECT e.created_at FROM entries e WHERE e.id = NEW.entry_id);
        RETURN NULL;
      END $$;`;

const IMMUTABLE_COLUMNS = [
  'id',
  'account_id',
  'source',
  'entry_id',
  'hold_id',
  'amount',
  'available_after',
  'created_at',
];

export class LedgerStatementLinesPresentedMigration1799100000000 implements MigrationInterface {
  name = 'LedgerStatementLinesPresentedMigration1799100000000';
  /** The schema change is one transaction; the backfill after it is one per batch. */
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.startTransaction();
    try {
      await queryRunner.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await queryRunner.query('ALTER TABLE statement_lines ADD COLUMN IF NOT EXISTS presented text');
      await queryRunner.query(PRESENTATION_SQL);
      const old = IMMUTABLE_COLUMNS.map((column) => `OLD.${column}`).join(', ');
      const changed = IMMUTABLE_COLUMNS.map((column) => `NEW.${column}`).join(', ');
      await queryRunner.query(`
        DROP TRIGGER IF EXISTS statement_lines_immutable ON statement_lines;
        DROP TRIGGER IF EXISTS statement_lines_immutable_columns ON statement_lines;
        DROP TRIGGER IF EXISTS statement_lines_presented ON statement_lines;
        DROP TRIGGER IF EXISTS kes_credits_statement_presented ON kes_credits;
        CREATE TRIGGER statement_lines_immutable BEFORE DELETE ON statement_lines FOR EACH ROW EXECUTE FUNCTION refuse_change();
        CREATE TRIGGER statement_lines_immutable_columns BEFORE UPDATE ON statement_lines FOR EACH ROW
          WHEN ((${old}) IS DISTINCT FROM (${changed})) EXECUTE FUNCTION refuse_change();
        CREATE TRIGGER statement_lines_presented BEFORE INSERT OR UPDATE ON statement_lines FOR EACH ROW
          EXECUTE FUNCTION statement_line_present();
        CREATE TRIGGER kes_credits_statement_presented AFTER INSERT ON kes_credits FOR EACH ROW
          EXECUTE FUNCTION statement_lines_present_credit();
      `);
      await queryRunner.commitTransaction();
    } catch (error) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
    await backfillStatementLinesPresented(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.startTransaction();
    try {
      await queryRunner.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await queryRunner.query(`
        DROP TRIGGER kes_credits_statement_presented ON kes_credits;
        DROP TRIGGER statement_lines_presented ON statement_lines;
        DROP TRIGGER statement_lines_immutable_columns ON statement_lines;
        DROP TRIGGER statement_lines_immutable ON statement_lines;
        CREATE TRIGGER statement_lines_immutable BEFORE UPDATE OR DELETE ON statement_lines FOR EACH ROW EXECUTE FUNCTION refuse_change();
        DROP FUNCTION statement_lines_present_credit(); DROP FUNCTION statement_line_present();
        DROP FUNCTION statement_line_presented(statement_lines); DROP FUNCTION statement_line_presentation();
        ALTER TABLE statement_lines DROP COLUMN presented;
      `);
      await queryRunner.commitTransaction();
    } catch (error) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
  }
}

/** The part of a query runner (or of a pool, in a test) the backfill needs: one statement, its rows. */
interface StatementRunner {
  query(text: string, values: unknown[]): Promise<{ id: string }[]>;
}

/**
 * Every line without its text gets it, BACKFILL_BATCH_LINES at a time in id
 * order, each batch its own transaction (a line whose text stays NULL is
 * passed, not read again): the batches end with the table, as `after` only
 * moves forward. Lines written meanwhile already have theirs.
 */
export async function backfillStatementLinesPresented(runner: StatementRunner): Promise<void> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await runner.query(
      `WITH batch AS (SELECT id FROM statement_lines WHERE id > $1 ORDER BY id LIMIT $2),
            written AS (UPDATE statement_lines l SET presented = NULL FROM batch
                         WHERE l.id = batch.id AND l.presented IS NULL RETURNING l.id)
       SELECT id::text AS id FROM batch ORDER BY id DESC LIMIT 1`,
      [after, BACKFILL_BATCH_LINES],
    );
    if (rows.length === 0) return;
    after = rows[0].id;
  }
}
