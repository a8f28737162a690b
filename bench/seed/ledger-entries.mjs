// The ledger's record of a settled order or transfer: its hold (hold id = the template's
// subject id: the order's, the transfer's), the entry that posted it and that entry's
// postings, and the balances those postings moved. Postings carry each account's running
// balance and version, so clone i of an account's posting gets
// version + i and balance + i × amount from the account as locked at seeding, and the
// accounts move by the chunk's clones × amount after each chunk (`afterChunk`): `ops ledger
// check` reconciles afterwards.
// Statement lines are written set-based, not by the ledger's triggers: inside the seeding's
// transaction the two statement triggers a clone fires (`postings_statement`, one call per
// posting reading the account's last line; `holds_statement_placed`, one per hold) are
// disabled, and after each chunk's postings one INSERT … SELECT writes the lines the posting
// trigger would have written, in the order it would have written them, with window functions
// (statementLinesSql). The holds trigger writes a line only when an account's posted − held
// differs from its statement's last line; that is checked false for every partner account
// before each chunk's holds go in (the accounts move after each chunk), so disabling it drops
// nothing. Disabling a trigger is a catalog change of the transaction: others keep seeing it
// enabled, and it is enabled again before the commit (or the rollback undoes it). It takes
// SHARE ROW EXCLUSIVE on holds and postings until the commit: ledger writers wait for the
// seeding, readers do not. `finish` checks the lines: one per clone per partner account, each
// line's amount the change from the line before, strictly later than it.
import { cloneIdSql, literal } from '../lib/clone-sql.js';
import { SeedSchemaError } from './clone.mjs';

const ACCOUNTS_LOCK_SQL = `
  SELECT a.id::text AS id, a.posted::text AS posted, a.version::text AS version, a.partner_id IS NOT NULL AS partner,
         (SELECT count(*)::int FROM statement_lines l WHERE l.account_id = a.id) AS lines,
         (SELECT count(*)::int FROM postings p WHERE p.entry_id = $1 AND p.account_id = a.id) AS postings
    FROM accounts a WHERE a.id IN (SELECT account_id FROM postings WHERE entry_id = $1) ORDER BY a.id FOR UPDATE`;

/** The statement triggers a clone's inserts fire, on the tables their seeding inserts into (holds, then postings: the ledger's lock order). */
const STATEMENT_TRIGGERS = Object.freeze([
  { table: 'holds', trigger: 'holds_statement_placed', fn: 'statement_on_hold' },
  { table: 'postings', trigger: 'postings_statement', fn: 'statement_on_posting' },
]);

const TRIGGERS_SQL = `
  SELECT c.relname AS table, t.tgname AS trigger, p.proname AS fn
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
   WHERE c.relname IN ('holds', 'postings') AND c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal
     AND t.tgenabled <> 'D' AND p.proname LIKE 'statement%' AND t.tgtype & 4 <> 0`; // tgtype bit 4: fires on INSERT

/** Partner accounts among `ids` whose posted − held is not where their statement ends (the holds trigger would write a line). */
const STATEMENT_BEHIND_SQL = `
  SELECT a.id::text AS id, (a.posted - a.held)::text AS available, l.available_after::text AS "statementEnd"
    FROM accounts a
    LEFT JOIN LATERAL (SELECT available_after FROM statement_lines WHERE account_id = a.id
                        ORDER BY created_at DESC, id DESC LIMIT 1) l ON true
   WHERE a.id = ANY($1::uuid[]) AND a.partner_id IS NOT NULL AND a.posted - a.held <> coalesce(l.available_after, 0)`;

/** Lines of the seeded accounts whose amount is not the change from the line before, or not strictly later. */
const STATEMENT_UNCHAINED_SQL = `
  SELECT account_id::text AS id, count(*)::int AS lines
    FROM (SELECT account_id, amount, available_after, created_at,
                 lag(available_after) OVER w AS prev_available, lag(created_at) OVER w AS prev_at
            FROM statement_lines WHERE account_id = ANY($1::uuid[])
          WINDOW w AS (PARTITION BY account_id ORDER BY created_at, id)) x
   WHERE prev_available IS NOT NULL AND (amount <> available_after - prev_available OR created_at <= prev_at)
   GROUP BY account_id`;

/**
 * The statement lines the posting trigger (statement_on_posting) writes for clones $1..$2's
 * postings, in one statement. Per posting, in insertion order per account (clone i; one
 * posting per account and clone, checked in prepare): held is the posting's held_after when it
 * has one and is a partner's, else the account's (the account row does not move while a chunk
 * is inserted); available_before = balance_after − amount − held, available_after =
 * balance_after − held; the previous available is the previous posting's available_after, or
 * the account's last line before the chunk. A 'hold_released' line (the hold the entry
 * posted, found as the trigger finds it) when available_before differs from it, then a
 * 'posting' line when available_after differs from available_before. created_at: the clock
 * or a microsecond past the account's last line, whichever is later, and a microsecond more
 * per line (the trigger's greatest(clock, last + 1 µs) when the clock does not move on).
 */
function statementLinesSql(tag) {
  const entryId = cloneIdSql(tag, 'entry');
  return `
    WITH clock AS (SELECT clock_timestamp() AS at),
    posted AS (
      SELECT p.account_id, p.entry_id, s.i,
             p.balance_after - p.amount - held.value AS before, p.balance_after - held.value AS after
        FROM generate_series($1::int, $2::int) AS s(i)
        JOIN postings p ON p.entry_id = ${entryId}
        JOIN accounts a ON a.id = p.account_id
       CROSS JOIN LATERAL (SELECT CASE WHEN p.held_after IS NOT NULL AND p.for_partner THEN p.held_after ELSE a.held END AS value) held
       WHERE p.for_partner IS DISTINCT FROM false
         AND ((p.held_after IS NOT NULL AND p.for_partner) OR a.partner_id IS NOT NULL)),
    last_line AS (
      SELECT x.account_id, l.available_after, l.created_at
        FROM (SELECT DISTINCT account_id FROM posted) x
        LEFT JOIN LATERAL (SELECT available_after, created_at FROM statement_lines WHERE account_id = x.account_id
                            ORDER BY created_at DESC, id DESC LIMIT 1) l ON true),
    chained AS (
      SELECT x.*, lag(x.after, 1, coalesce(ll.available_after, 0)) OVER (PARTITION BY x.account_id ORDER BY x.i) AS prev
        FROM posted x JOIN last_line ll USING (account_id)),
    lines AS (
      SELECT c.account_id, 'hold_released' AS source, NULL::uuid AS entry_id, released.id AS hold_id,
             c.before - c.prev AS amount, c.before AS available_after, c.i, 0 AS rank
        FROM chained c
        LEFT JOIN LATERAL (SELECT h.id FROM entries e JOIN holds h
                              ON h.account_id = c.account_id
                             AND h.id = CASE WHEN e.metadata->>'holdId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                                             THEN (e.metadata->>'holdId')::uuid END
                           WHERE e.id = c.entry_id) released ON true
       WHERE c.before <> c.prev
      UNION ALL
      SELECT c.account_id, 'posting', c.entry_id, NULL, c.after - c.before, c.after, c.i, 1
        FROM chained c WHERE c.after <> c.before)
    INSERT INTO statement_lines (account_id, source, entry_id, hold_id, amount, available_after, created_at)
    SELECT l.account_id, l.source, l.entry_id, l.hold_id, l.amount, l.available_after,
           greatest(clock.at, coalesce(ll.created_at + interval '1 microsecond', clock.at))
             + (row_number() OVER (PARTITION BY l.account_id ORDER BY l.i, l.rank) - 1) * interval '1 microsecond'
      FROM lines l JOIN last_line ll USING (account_id) CROSS JOIN clock
     ORDER BY l.account_id, l.i, l.rank`;
}

/** Disables (or enables again) the statement triggers, failing when the schema's are not the ones this seeder replaces. */
async function setStatementTriggers(client, enabled) {
  if (!enabled) {
    const { rows } = await client.query(TRIGGERS_SQL);
    const found = rows.map((row) => `${row.table}.${row.trigger}:${row.fn}`).sort();
    const known = STATEMENT_TRIGGERS.map((row) => `${row.table}.${row.trigger}:${row.fn}`).sort();
    if (found.join() !== known.join())
      throw new SeedSchemaError(
        `the ledger's statement triggers on holds and postings are ${found.join(', ') || 'none'}, the seeder writes the lines of ${known.join(', ')}`,
      );
  }
  for (const { table, trigger } of STATEMENT_TRIGGERS)
    await client.query(`ALTER TABLE ${table} ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
}

/** Stops the seeding when the holds trigger, disabled, would have written a line for a chunk's holds. */
async function assertStatementsCaughtUp(client, accountIds) {
  const { rows } = await client.query(STATEMENT_BEHIND_SQL, [accountIds]);
  if (rows.length > 0)
    throw new Error(
      `statement behind its account (the holds trigger would write a line): ${rows.map((row) => `${row.id} available ${row.available}, statement ends at ${row.statementEnd}`).join('; ')}`,
    );
}

export const ledgerEntries = {
  name: 'ledger hold, settlement entry and postings',
  database: 'svc_ledger',
  required: true,
  /** The entry that posted the template's hold: a clone id of its own (role "entry"). */
  async extraIds(client, template) {
    const { rows } = await client.query('SELECT entry_id::text AS "entryId", status FROM holds WHERE id = $1', [
      template.subjectId,
    ]);
    if (rows.length !== 1)
      throw new SeedSchemaError(`svc_ledger.holds has no hold with the ${template.kind}'s id ${template.subjectId}`);
    if (rows[0].status !== 'posted' || !rows[0].entryId)
      throw new SeedSchemaError(`the template ${template.kind}'s hold is ${rows[0].status}, not posted with an entry`);
    return [{ id: rows[0].entryId, role: 'entry' }];
  },
  /** Locks the accounts the entry moved (in id order, as the ledger does) and reads their balance and version. */
  async prepare(client, template, ids, tag) {
    const entryId = ids.find((id) => id.role === 'entry').id;
    const { rows } = await client.query(ACCOUNTS_LOCK_SQL, [entryId]);
    const repeated = rows.filter((row) => row.postings !== 1);
    if (repeated.length > 0)
      throw new SeedSchemaError(
        `the template's entry posts more than once to account(s) ${repeated.map((row) => row.id).join(', ')}: running balances per clone would need another rule`,
      );
    const { rows: held } = await client.query('SELECT account_id::text AS id FROM holds WHERE id = $1', [
      template.subjectId,
    ]);
    const watched = [...new Set([...rows.map((row) => row.id), ...held.map((row) => row.id)])];
    await setStatementTriggers(client, false);
    await assertStatementsCaughtUp(client, watched);
    return { entryId, accounts: rows, watched, linesSql: statementLinesSql(tag) };
  },
  async plans(template, tag, prepared) {
    const { entryId, accounts } = prepared;
    const values = accounts
      .map((row) => `(${literal(row.id)}::uuid, ${literal(row.version)}::bigint, ${literal(row.posted)}::numeric)`)
      .join(', ');
    return [
      { table: 'entries', where: `tpl.id = ${literal(entryId)}::uuid`, requiredColumns: ['id'] },
      {
        table: 'holds',
        where: `tpl.id = ${literal(template.subjectId)}::uuid`,
        requiredColumns: ['id', 'account_id', 'status', 'entry_id'],
      },
      {
        table: 'postings',
        where: `tpl.entry_id = ${literal(entryId)}::uuid`,
        expectedRows: 'some',
        requiredColumns: ['entry_id', 'account_id', 'amount'],
        joins: `JOIN (VALUES ${values}) AS acct(id, version, posted) ON acct.id = tpl.account_id`,
        overrides: { version_after: 'acct.version + s.i', balance_after: 'acct.posted + s.i * tpl.amount' },
        orderBy: 's.i, tpl.id',
      },
    ];
  },
  /** Each account moves by the chunk's clones × its posting, its version by as many: as if each clone had posted. */
  async afterChunk(client, template, first, last, prepared, timed = (name, work) => work()) {
    await timed('svc_ledger.statement_lines (set-based)', () => client.query(prepared.linesSql, [first, last]));
    // The next chunk's lines query reads postings by entry and each account's last line: planned from the
    // statistics of tables grown by every chunk's postings and lines inside this uncommitted
    // transaction (autovacuum cannot see them), so sampled here. No other table needs it: the triggers
    // that planned reads from them per row are off, and the rest are statement-level.
    await timed('ANALYZE postings, statement_lines between chunks', () =>
      client.query('ANALYZE postings, statement_lines'),
    );
    const result = await client.query(
      `UPDATE accounts a SET posted = a.posted + $2::bigint * p.amount, version = a.version + $2::bigint
         FROM postings p WHERE p.entry_id = $1 AND p.account_id = a.id`,
      [prepared.entryId, last - first + 1],
    );
    if (result.rowCount !== prepared.accounts.length)
      throw new Error(`moved ${result.rowCount} accounts, expected ${prepared.accounts.length}`);
    await assertStatementsCaughtUp(client, prepared.watched);
  },
  async finish(client, template, count, prepared) {
    await setStatementTriggers(client, true);
    await assertStatementLinesWritten(client, prepared.accounts, count);
  },
};

/** Each partner account the entry moved has gained one statement line per clone, each chained on the line before. */
async function assertStatementLinesWritten(client, accounts, count) {
  const partnerAccounts = accounts.filter((row) => row.partner);
  if (partnerAccounts.length === 0) return;
  const { rows } = await client.query(
    'SELECT account_id::text AS id, count(*)::int AS lines FROM statement_lines WHERE account_id = ANY($1::uuid[]) GROUP BY account_id',
    [partnerAccounts.map((row) => row.id)],
  );
  const after = new Map(rows.map((row) => [row.id, row.lines]));
  const wrong = partnerAccounts.filter((row) => (after.get(row.id) ?? 0) - row.lines !== count);
  if (wrong.length > 0)
    throw new Error(
      `statement lines written while cloning: ${wrong.map((row) => `${row.id} +${(after.get(row.id) ?? 0) - row.lines}`).join(', ')}, expected +${count} each`,
    );
  const { rows: unchained } = await client.query(STATEMENT_UNCHAINED_SQL, [partnerAccounts.map((row) => row.id)]);
  if (unchained.length > 0)
    throw new Error(
      `statement lines not chained on the line before: ${unchained.map((row) => `${row.id} ${row.lines}`).join(', ')}`,
    );
}
