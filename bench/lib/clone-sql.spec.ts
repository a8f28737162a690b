import { createHash } from 'node:crypto';
import {
  cloneColumns,
  cloneId,
  cloneIdSql,
  cloneInsertSql,
  identifier,
  literal,
  missingColumns,
  timeShiftSql,
  firstCloneWithin,
  uniqueIndexProblems,
} from './clone-sql';

const ORDER = '3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const QUOTE = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const ids = [
  { id: ORDER, role: 'order', sql: cloneIdSql('t1', 'order') },
  { id: QUOTE, role: 'quote', sql: cloneIdSql('t1', 'quote') },
];
const columns = [
  { name: 'order_id', type: 'uuid', generated: false },
  { name: 'partner_id', type: 'uuid', generated: false },
  { name: 'quote_id', type: 'uuid', generated: false },
  { name: 'partner_reference', type: 'text', generated: false },
  { name: 'status', type: 'text', generated: false },
  { name: 'metadata', type: 'jsonb', generated: false },
  { name: 'kes_amount', type: 'numeric', generated: false },
  { name: 'created_at', type: 'timestamp with time zone', generated: false },
  { name: 'completed_at', type: 'timestamp with time zone', generated: false },
  { name: 'seq', type: 'bigint', generated: true },
];
const template = {
  order_id: ORDER,
  partner_id: '11111111-2222-4333-8444-555555555555',
  quote_id: QUOTE,
  partner_reference: 'bench-template',
  status: 'settled',
  metadata: { orderId: ORDER, kind: 'order_buy' },
  kes_amount: 100,
  created_at: '2026-11-25T08:00:00.123456+00:00',
  completed_at: null,
  seq: 1,
};
const shift = timeShiftSql({ endMs: 1_800_000_000_000, stepMs: 800, count: 10, anchorIso: template.created_at });

describe('clone ids', () => {
  it('are the same in SQL and JavaScript terms: md5 of tag:role:i shaped as a version-4 uuid', () => {
    expect(cloneIdSql('t1', 'order')).toBe(
      "overlay(overlay(md5('t1:order:' || s.i) placing '4' from 13) placing '8' from 17)::uuid",
    );
    const id = cloneId('t1', 'order', 7);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    // md5('t1:order:7') with its 13th and 17th hex digits replaced
    const hex = createHash('md5').update('t1:order:7').digest('hex');
    expect(id.replaceAll('-', '')).toBe(`${hex.slice(0, 12)}4${hex.slice(13, 16)}8${hex.slice(17)}`);
    expect(cloneId('t1', 'order', 8)).not.toBe(id);
    expect(cloneId('t1', 'quote', 7)).not.toBe(id);
  });

  it('refuse tags and roles that are not plain words', () => {
    expect(() => cloneIdSql("x'; drop table orders; --", 'order')).toThrow('seed tag');
    expect(() => cloneId('t1', 'Order!', 1)).toThrow('id role');
  });
});

describe('clone columns', () => {
  const selected = Object.fromEntries(
    cloneColumns({ columns, template, ids, overrides: { partner_reference: "'seed-' || s.i" }, shift }).map(
      ({ name, expression }) => [name, expression],
    ),
  );

  it('maps uuid columns holding a template id to the clone id', () => {
    expect(selected.order_id).toBe(
      `CASE tpl."order_id" WHEN '${ORDER}'::uuid THEN ${ids[0].sql} WHEN '${QUOTE}'::uuid THEN ${ids[1].sql} ELSE tpl."order_id" END`,
    );
    expect(selected.quote_id).toContain(`WHEN '${QUOTE}'::uuid THEN ${ids[1].sql}`);
  });

  it('copies columns that hold no template id, whatever their type', () => {
    expect(selected.partner_id).toBe('tpl."partner_id"');
    expect(selected.status).toBe('tpl."status"');
    expect(selected.kes_amount).toBe('tpl."kes_amount"');
  });

  it('replaces template ids inside json text and casts back', () => {
    expect(selected.metadata).toBe(
      `replace(replace(tpl."metadata"::text, '${ORDER}', (${ids[0].sql})::text), '${QUOTE}', (${ids[1].sql})::text)::jsonb`,
    );
  });

  it('moves every timestamp by the clone interval (a null stays null)', () => {
    expect(selected.created_at).toBe(`tpl."created_at" + ${shift}`);
    expect(selected.completed_at).toBe(`tpl."completed_at" + ${shift}`);
    expect(shift).toBe(
      "(to_timestamp((1800000000000::bigint - (10::bigint - s.i + 1) * 800::bigint) / 1000.0) - '2026-11-25T08:00:00.123456+00:00'::timestamptz)",
    );
  });

  it('uses overrides as given and leaves generated columns to their default', () => {
    expect(selected.partner_reference).toBe("'seed-' || s.i");
    expect(selected).not.toHaveProperty('seq');
  });

  it('refuses an override of a column the table lacks, and a template id in a column it cannot rewrite', () => {
    expect(() => cloneColumns({ columns, template, ids, overrides: { reference: "'x'" }, shift })).toThrow(
      'overrides name columns the table lacks: reference',
    );
    expect(() =>
      cloneColumns({
        columns: [{ name: 'raw', type: 'bytea', generated: false }],
        template: { raw: ORDER },
        ids,
        shift,
      }),
    ).toThrow('raw (bytea) holds a template id');
  });

  it('builds one INSERT … SELECT over the clone range, in clone order', () => {
    const sql = cloneInsertSql({
      table: 'orders',
      selected: [
        { name: 'order_id', expression: 'x' },
        { name: 'status', expression: 'tpl."status"' },
      ],
      where: `tpl.order_id = '${ORDER}'`,
      first: 1,
      last: 500,
    });
    expect(sql).toContain('INSERT INTO "orders" ("order_id", "status")');
    expect(sql).toContain('CROSS JOIN generate_series(1, 500) AS s(i)');
    expect(sql).toContain(`WHERE tpl.order_id = '${ORDER}'`);
    expect(sql).toMatch(/ORDER BY s\.i$/);
    expect(() => cloneInsertSql({ table: 'orders', selected: [], where: 'true', first: 5, last: 4 })).toThrow(
      'bad clone range',
    );
  });

  it('quotes literals and refuses identifiers that are not plain', () => {
    expect(literal("it's")).toBe("'it''s'");
    expect(() => identifier('orders; drop')).toThrow('not a plain SQL identifier');
  });
});

describe('unique indexes under cloning', () => {
  const index = (name: string, members: (string | null)[], extra = {}) => ({
    name,
    columns: members,
    predicateApplies: true,
    nullsNotDistinct: false,
    ...extra,
  });
  const check = (indexes: ReturnType<typeof index>[], overrides = {}) =>
    uniqueIndexProblems({ table: 'svc_trading.orders', indexes, columns, template, ids, overrides });

  it('accepts an index with a member that changes per clone (id, override, generated)', () => {
    expect(check([index('orders_pkey', ['order_id'])])).toEqual([]);
    expect(
      check([index('orders_reference', ['partner_id', 'partner_reference'])], { partner_reference: "'seed-' || s.i" }),
    ).toEqual([]);
    expect(check([index('orders_seq', ['seq'])])).toEqual([]);
  });

  it('names an index every clone would repeat', () => {
    expect(check([index('orders_reference', ['partner_id', 'partner_reference'])])).toEqual([
      'svc_trading.orders: unique index orders_reference (partner_id, partner_reference) would repeat in every clone',
    ]);
  });

  it('accepts a null member unless the index treats nulls as equal', () => {
    expect(check([index('orders_completed', ['completed_at'])])).toEqual([]);
    expect(check([index('orders_completed', ['completed_at'], { nullsNotDistinct: true })])).toHaveLength(1);
  });

  it('accepts a partial index the template does not fall under', () => {
    expect(check([index('one_pending', ['partner_id'], { predicateApplies: false })])).toEqual([]);
    expect(check([index('one_pending', ['partner_id'])])).toHaveLength(1);
  });

  it('cannot judge an expression member', () => {
    expect(check([index('lower_reference', [null])])).toEqual([
      'svc_trading.orders: unique index lower_reference (<expression>) would repeat in every clone',
    ]);
  });

  it('lists the columns a seeder needs that the table lacks', () => {
    expect(missingColumns(columns, ['order_id', 'version_after', 'balance_after'])).toEqual([
      'version_after',
      'balance_after',
    ]);
  });
});

describe('firstCloneWithin', () => {
  const DAY_MS = 24 * 60 * 60 * 1000;
  const nowMs = 1_800_000_000_000;
  // 90 clones a day apart, the last one a day before now: clone i is (91 − i) days old.
  const clones = { count: 90, endMs: nowMs - DAY_MS, stepMs: DAY_MS, nowMs };
  const ageDays = (i: number) => (nowMs - (clones.endMs - (clones.count - i + 1) * clones.stepMs)) / DAY_MS;

  it('keeps exactly the clones a day younger than the window', () => {
    const first = firstCloneWithin({ ...clones, windowMs: 60 * DAY_MS });
    expect(ageDays(first)).toBeLessThanOrEqual(59);
    expect(ageDays(first - 1)).toBeGreaterThan(59);
  });

  it('keeps every clone when the window is longer than the span', () => {
    expect(firstCloneWithin({ ...clones, windowMs: 400 * DAY_MS })).toBe(1);
  });

  it('keeps none when even the newest is past the window', () => {
    expect(firstCloneWithin({ ...clones, endMs: nowMs - 70 * DAY_MS, windowMs: 60 * DAY_MS })).toBe(91);
  });
});
