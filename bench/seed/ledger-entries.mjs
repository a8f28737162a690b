// The ledger's record of a settled order: its hold (hold id = order id), the settlement
// entry and that entry's postings, and the balances those postings moved. Postings carry
// each account's running balance and version, so clone i of an account's posting gets
// version + i and balance + i × amount from the account as locked at seeding, and the
// accounts move by the chunk's clones × amount after each chunk (`afterChunk`): `ops ledger
// check` reconciles afterwards.
// Statement lines are not cloned: the ledger's posting trigger appends one per cloned
// posting to a partner account (dated at seeding, after the template's own lines, each
// chaining on the one before), and `finish` counts them. The accounts must move with every
// chunk, not once at the end: the next chunk's cloned holds fire the holds trigger, which
// appends a line whenever the account's posted − held differs from the last line's
// available balance. With the accounts left behind, each chunk boundary wrote two lines
// more than one per posting (a 'hold_placed' line back to the stale balance, then a
// 'hold_released' line forward again before the chunk's first posting).
import { literal } from '../lib/clone-sql.js';
import { SeedSchemaError } from './clone.mjs';

const ACCOUNTS_LOCK_SQL = `
  SELECT a.id::text AS id, a.posted::text AS posted, a.version::text AS version, a.partner_id IS NOT NULL AS partner,
         (SELECT count(*)::int FROM statement_lines l WHERE l.account_id = a.id) AS lines,
         (SELECT count(*)::int FROM postings p WHERE p.entry_id = $1 AND p.account_id = a.id) AS postings
    FROM accounts a WHERE a.id IN (SELECT account_id FROM postings WHERE entry_id = $1) ORDER BY a.id FOR UPDATE`;

export const ledgerEntries = {
  name: 'ledger hold, settlement entry and postings',
  database: 'svc_ledger',
  required: true,
  /** The settlement entry's id: a clone id of its own (role "entry"). */
  async extraIds(client, template) {
    const { rows } = await client.query('SELECT entry_id::text AS "entryId", status FROM holds WHERE id = $1', [
      template.orderId,
    ]);
    if (rows.length !== 1)
      throw new SeedSchemaError(`svc_ledger.holds has no hold with the order's id ${template.orderId}`);
    if (rows[0].status !== 'posted' || !rows[0].entryId)
      throw new SeedSchemaError(`the template order's hold is ${rows[0].status}, not posted with an entry`);
    return [{ id: rows[0].entryId, role: 'entry' }];
  },
  /** Locks the accounts the entry moved (in id order, as the ledger does) and reads their balance and version. */
  async prepare(client, template, ids) {
    const entryId = ids.find((id) => id.role === 'entry').id;
    const { rows } = await client.query(ACCOUNTS_LOCK_SQL, [entryId]);
    const repeated = rows.filter((row) => row.postings !== 1);
    if (repeated.length > 0)
      throw new SeedSchemaError(
        `the settlement entry posts more than once to account(s) ${repeated.map((row) => row.id).join(', ')}: running balances per clone would need another rule`,
      );
    return { entryId, accounts: rows };
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
        where: `tpl.id = ${literal(template.orderId)}::uuid`,
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
  async afterChunk(client, template, first, last, prepared) {
    const result = await client.query(
      `UPDATE accounts a SET posted = a.posted + $2::bigint * p.amount, version = a.version + $2::bigint
         FROM postings p WHERE p.entry_id = $1 AND p.account_id = a.id`,
      [prepared.entryId, last - first + 1],
    );
    if (result.rowCount !== prepared.accounts.length)
      throw new Error(`moved ${result.rowCount} accounts, expected ${prepared.accounts.length}`);
  },
  async finish(client, template, count, prepared) {
    await assertStatementLinesWritten(client, prepared.accounts, count);
  },
};

/** Each partner account the entry moved has gained one statement line per clone, from the ledger's trigger. */
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
}
