// Proves the due-rows measurement reads exactly the claim's rows: the timer
// column in the past plus the claim's own condition, walked in timer order and
// bounded; and that a table or column that is not a plain identifier is refused
// (they are written in code, but never interpolated unchecked). And that giving
// claims back moves only rows still leased and still matching the claim, due
// now, with the claim's attempt taken back.
import {
  claimDueSql,
  DUE_ROWS_COUNTED_MAX,
  dueRowsProbe,
  dueRowsSql,
  releaseClaims,
  releaseClaimsSql,
} from './due-rows';

describe('dueRowsSql', () => {
  it("counts due rows in timer order, bounded, with the claim's condition", () => {
    const sql = dueRowsSql({ table: 'holds', dueColumn: 'expires_at', where: "status = 'pending'" });
    expect(sql).toContain(
      "FROM holds\n           WHERE expires_at <= now() AND (status = 'pending') ORDER BY expires_at LIMIT $1",
    );
    expect(dueRowsSql({ table: 'orders', dueColumn: 'next_action_at' })).toContain(
      'WHERE next_action_at <= now() ORDER BY next_action_at LIMIT $1',
    );
  });

  it('refuses anything but plain identifiers', () => {
    expect(() => dueRowsSql({ table: 'orders; DROP TABLE orders', dueColumn: 'next_action_at' })).toThrow(
      /not an identifier/,
    );
    expect(() => dueRowsSql({ table: 'orders', dueColumn: 'Next' })).toThrow(/not an identifier/);
  });
});

describe('claimDueSql', () => {
  it('locks due rows in timer order, skipping held ones, leases them ahead with what else the claim sets, and answers each lease token', () => {
    const sql = claimDueSql(
      { table: 'payout_instructions', dueColumn: 'next_attempt_at', where: "status = 'pending'" },
      { idColumn: 'instruction_id', returning: 'instruction_id', alsoSet: 'attempts = attempts + 1' },
    );
    expect(sql.replace(/\s+/g, ' ')).toBe(
      'UPDATE payout_instructions SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), ' +
        'attempts = attempts + 1 WHERE instruction_id IN (SELECT instruction_id FROM payout_instructions ' +
        "WHERE next_attempt_at <= now() AND (status = 'pending') ORDER BY next_attempt_at LIMIT $1 " +
        'FOR UPDATE SKIP LOCKED) RETURNING instruction_id, next_attempt_at::text AS "leaseToken"',
    );
  });

  it('refuses anything but plain identifiers', () => {
    const claim = { idColumn: 'id', returning: 'id' };
    expect(() => claimDueSql({ table: 'orders', dueColumn: 'due' }, { ...claim, idColumn: 'id; --' })).toThrow(
      /not an identifier/,
    );
    expect(() => claimDueSql({ table: 'orders x', dueColumn: 'due' }, claim)).toThrow(/not an identifier/);
  });
});

describe('dueRowsProbe', () => {
  it('passes the bound and reads the row the database answers', async () => {
    const calls: unknown[][] = [];
    const dataSource = {
      query: async (_sql: string, parameters: unknown[]) => {
        calls.push(parameters);
        return [{ due_rows: 3, oldest_due_age_ms: '1500' }];
      },
    };
    const measure = dueRowsProbe(dataSource as never, { table: 'orders', dueColumn: 'next_action_at' });
    await expect(measure()).resolves.toEqual({ dueRows: 3, oldestDueAgeMs: 1500 });
    expect(calls).toEqual([[DUE_ROWS_COUNTED_MAX]]);
  });
});

describe('releaseClaimsSql', () => {
  it('makes still-leased rows due now and takes the counted attempt back', () => {
    const sql = releaseClaimsSql({
      table: 'collections',
      dueColumn: 'next_step_at',
      where: "status = 'crediting'",
      idColumn: 'id',
      attemptsColumn: 'step_attempts',
    });
    expect(sql.replace(/\s+/g, ' ')).toBe(
      'UPDATE collections SET next_step_at = now(), step_attempts = greatest(step_attempts - 1, 0) ' +
        "WHERE id = ANY($1) AND next_step_at > now() AND (status = 'crediting')",
    );
  });

  it('leaves attempts alone when the claim counts none, and needs a key that is an identifier', () => {
    expect(releaseClaimsSql({ table: 'transfers', dueColumn: 'next_action_at', idColumn: 'transfer_id' })).not.toMatch(
      /greatest/,
    );
    expect(() => releaseClaimsSql({ table: 'transfers', dueColumn: 'next_action_at' })).toThrow(/not identifiers/);
  });

  it('sends nothing for no rows, and answers how many moved', async () => {
    const calls: unknown[][] = [];
    const manager = {
      query: async (_sql: string, parameters: unknown[]) => {
        calls.push(parameters);
        return [[], 2];
      },
    };
    const rows = { table: 'transfers', dueColumn: 'next_action_at', idColumn: 'transfer_id' };
    await expect(releaseClaims(manager as never, rows, [])).resolves.toBe(0);
    await expect(releaseClaims(manager as never, rows, ['t1', 't2'])).resolves.toBe(2);
    expect(calls).toEqual([[['t1', 't2']]]);
  });
});
