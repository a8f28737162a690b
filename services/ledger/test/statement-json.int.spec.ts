// Proves, against the real ledger and its database, that a statement page the
// database builds as JSON (as_json_array) is byte for byte the page the gateway
// makes from the same page's lines (the presentation below restates the
// gateway's), on every page of a cursor walk and with a resource id that JSON
// must escape; that it pages by the same cursors; that an empty page is `[]`;
// that a page holding an entry kind only the ledger's code can type comes back
// as lines instead; and that another partner's account is refused the same way.
// The pages are the objects stored with each line (statement_lines.presented):
// the database's copy of the type and scale tables must be the code's, a line's
// stored object cannot be set to anything but what the trigger writes, its
// other columns stay immutable, and a line without its object (before the
// migration's backfill reached it) turns its page into lines until the
// backfill writes it.
import { randomUUID } from 'node:crypto';
import { Big, CURRENCY_SCALE } from '@platform/money';
import type { ledger } from '@platform/proto';
import { createTestPartner, TestPartner } from '@platform/testing';
import { ENTRY_KIND_TYPES } from '../src/domain/statement-line-type';
import { backfillStatementLinesPresented } from '../src/persistence/migrations/1799100000000-ledger-statement-lines-presented';
import { codeOf, fundKes, useLedgerSpec } from './ledger-support';

/** The gateway's presentStatementLine (services/gateway/src/http/routes/balances.route.ts). */
function presented(line: ledger.StatementLine) {
  return {
    id: line.lineId,
    accountId: line.accountId,
    currency: line.currency,
    type: line.type,
    amount: line.amount,
    direction: line.amount.startsWith('-') ? 'debit' : 'credit',
    availableAfter: line.availableAfter,
    createdAt: line.createdAt,
    resourceId: line.resourceId || null,
  };
}

/** A resource id with every kind of character JSON escapes or passes through. */
const ODD_RESOURCE = 'tr "quoted" \\ back\nline\ttab \u0001 é ✓ 😀 </script>';

describe('statement pages as JSON', () => {
  const spec = useLedgerSpec({ balancedAfter: 'all' });
  let partner: TestPartner;

  beforeAll(async () => {
    partner = await createTestPartner();
    for (const amountKes of ['1000.00', '250.50', '0.01']) await fundKes(spec.client, partner.partnerId, amountKes);
    const hold = await spec.client.placeHold({
      holdId: randomUUID(),
      accountId: partner.kesAccountId,
      amount: '100.00',
      metadata: { purpose: 'test' },
    });
    await spec.client.voidHold({ holdId: hold.holdId });
    await spec.client.postEntry(transferEntry('transfer', { transferId: ODD_RESOURCE }, '12.34'));
  });

  function transferEntry(kind: string, metadata: Record<string, string>, amountKes: string) {
    return {
      entryId: randomUUID(),
      kind,
      partnerId: partner.partnerId,
      metadata,
      postings: [
        { accountId: partner.kesAccountId, amount: `-${amountKes}` },
        { accountId: spec.treasuryKes, amount: new Big(amountKes).toFixed(2) },
      ],
    };
  }

  const page = (cursor: string, asJsonArray: boolean, limit = 2) =>
    spec.client.listStatement({
      partnerId: partner.partnerId,
      accountId: partner.kesAccountId,
      limit,
      cursor,
      asJsonArray,
    });

  it('answers every page of a walk as the bytes the gateway makes of its lines, by the same cursors', async () => {
    let cursor = '';
    let pages = 0;
    do {
      const [lines, json] = await Promise.all([page(cursor, false), page(cursor, true)]);
      expect(json.lines).toEqual([]);
      expect(Buffer.from(json.pageJson).toString('utf8')).toBe(JSON.stringify(lines.lines.map(presented)));
      expect(json.nextCursor).toBe(lines.nextCursor);
      cursor = lines.nextCursor;
      pages += 1;
    } while (cursor !== '' && pages < 10);
    expect(cursor).toBe('');
    expect(pages).toBeGreaterThanOrEqual(3);
    const whole = await page('', true, 100);
    expect(JSON.parse(Buffer.from(whole.pageJson).toString('utf8'))).toContainEqual(
      expect.objectContaining({ type: 'transfer', resourceId: ODD_RESOURCE, amount: '-12.34', direction: 'debit' }),
    );
    // A credit's resource is its kes_credits row, written after the credit's lines.
    expect(JSON.parse(Buffer.from(whole.pageJson).toString('utf8'))).toContainEqual(
      expect.objectContaining({
        type: 'credit',
        amount: '250.50',
        resourceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      }),
    );
  });

  it("keeps the database's type and scale tables the code's (a change to either ships with a migration)", async () => {
    const { rows } = await spec.pool.query('SELECT statement_line_presentation() AS presentation');
    expect(rows[0].presentation).toEqual({ types: ENTRY_KIND_TYPES, scales: CURRENCY_SCALE });
  });

  it("keeps a line's columns immutable and its stored object the trigger's", async () => {
    const account = partner.kesAccountId;
    const before = await spec.pool.query(
      'SELECT id, presented FROM statement_lines WHERE account_id = $1 ORDER BY id',
      [account],
    );
    await expect(
      spec.pool.query('UPDATE statement_lines SET amount = amount + 1 WHERE account_id = $1', [account]),
    ).rejects.toThrow(/immutable/);
    await expect(spec.pool.query('DELETE FROM statement_lines WHERE account_id = $1', [account])).rejects.toThrow(
      /immutable/,
    );
    await spec.pool.query(`UPDATE statement_lines SET presented = '{}' WHERE account_id = $1`, [account]);
    const after = await spec.pool.query('SELECT id, presented FROM statement_lines WHERE account_id = $1 ORDER BY id', [
      account,
    ]);
    expect(after.rows).toEqual(before.rows);
    expect(before.rows.every((row: { presented: string | null }) => row.presented !== null)).toBe(true);
  });

  it('answers lines the backfill has not reached as lines, then as the same bytes once it wrote them', async () => {
    const account = partner.kesAccountId;
    const expected = JSON.stringify((await page('', false, 100)).lines.map(presented));
    // A line from before the migration: its object not written (the trigger disabled for this transaction only).
    const client = await spec.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('ALTER TABLE statement_lines DISABLE TRIGGER statement_lines_presented');
      await client.query('UPDATE statement_lines SET presented = NULL WHERE account_id = $1', [account]);
      await client.query('ALTER TABLE statement_lines ENABLE TRIGGER statement_lines_presented');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const pending = await page('', true, 100);
    expect(pending.pageJson.byteLength).toBe(0);
    expect(JSON.stringify(pending.lines.map(presented))).toBe(expected);
    await backfillStatementLinesPresented({
      query: async (text, values) => (await spec.pool.query(text, values)).rows,
    });
    const written = await page('', true, 100);
    expect(written.lines).toEqual([]);
    expect(Buffer.from(written.pageJson).toString('utf8')).toBe(expected);
  });

  it('answers an empty window as [] and refuses an account of another partner in either form', async () => {
    const empty = await spec.client.listStatement({
      partnerId: partner.partnerId,
      accountId: partner.kesAccountId,
      to: '2001-01-01T00:00:00.000Z',
      limit: 0,
      cursor: '',
      asJsonArray: true,
    });
    expect(Buffer.from(empty.pageJson).toString('utf8')).toBe('[]');
    expect(empty.nextCursor).toBe('');
    const other = await createTestPartner();
    for (const asJsonArray of [false, true])
      expect(
        await codeOf(
          spec.client.listStatement({
            partnerId: other.partnerId,
            accountId: partner.kesAccountId,
            limit: 0,
            cursor: '',
            asJsonArray,
          }),
        ),
      ).toBe('ACCOUNT_NOT_FOUND');
  });

  it('answers a page with a kind typed by its words as lines, the same as without as_json_array', async () => {
    await spec.client.postEntry(transferEntry('kes_fee_test', { reference: 'F1' }, '1.00'));
    const [lines, json] = await Promise.all([page('', false, 3), page('', true, 3)]);
    expect(json.pageJson.byteLength).toBe(0);
    expect(json.lines).toEqual(lines.lines);
    expect(json.lines[0]).toMatchObject({ type: 'fee', amount: '-1.00' });
  });
});
