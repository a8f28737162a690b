import {
  growth,
  PlanNode,
  rowsExamined,
  sequentialScans,
  statementSequentialScans,
  totalRowsExamined,
} from './query-plans';

// Shapes as PostgreSQL 15 writes them for EXPLAIN (ANALYZE, FORMAT JSON).
const nestedLoop: PlanNode = {
  'Node Type': 'Nested Loop',
  'Actual Rows': 3,
  'Actual Loops': 1,
  Plans: [
    {
      'Node Type': 'Seq Scan',
      'Relation Name': 'partner_profiles',
      'Actual Rows': 1,
      'Actual Loops': 1,
      'Rows Removed by Filter': 49,
    },
    {
      'Node Type': 'Index Scan',
      'Relation Name': 'orders',
      'Index Name': 'orders_partner_created_idx',
      'Actual Rows': 3,
      'Actual Loops': 1,
      'Rows Removed by Filter': 2,
    },
  ],
};

const bitmap: PlanNode = {
  'Node Type': 'Bitmap Heap Scan',
  'Relation Name': 'quotes',
  'Actual Rows': 10,
  'Actual Loops': 2,
  'Rows Removed by Index Recheck': 5,
  Plans: [{ 'Node Type': 'Bitmap Index Scan', 'Index Name': 'quotes_partner_idx', 'Actual Rows': 15 }],
};

describe('query plans', () => {
  it('counts the rows each table scan produced and threw away, times its loops', () => {
    expect(rowsExamined(nestedLoop)).toEqual({ partner_profiles: 50, orders: 5 });
    expect(rowsExamined(bitmap)).toEqual({ quotes: 30 });
  });

  it('names the growing tables read sequentially, and only those', () => {
    expect(sequentialScans(nestedLoop, ['orders', 'partner_profiles'])).toEqual(['partner_profiles']);
    expect(sequentialScans(nestedLoop, ['orders'])).toEqual([]);
  });

  it('sums an operation’s statements per table', () => {
    const statement = (plan: PlanNode) => ({ sql: '', parameters: [], plan, tableReads: {} });
    expect(totalRowsExamined([statement(nestedLoop), statement(bitmap), statement(bitmap)])).toEqual({
      partner_profiles: 50,
      orders: 5,
      quotes: 60,
    });
  });

  it('counts what a function or trigger read inside a statement, from its transaction’s statistics', () => {
    const call: PlanNode = { 'Node Type': 'Result', 'Actual Rows': 1, 'Actual Loops': 1 };
    const statement = {
      sql: 'SELECT place_order($1)',
      parameters: [],
      plan: call,
      tableReads: { orders: { seqScans: 1, rows: 900 }, quotes: { seqScans: 0, rows: 1 } },
    };
    expect(totalRowsExamined([statement])).toEqual({ orders: 900, quotes: 1 });
    expect(statementSequentialScans(statement, ['orders', 'quotes'])).toEqual(['orders']);
    // A plan that sees more than the statistics (an index-only scan fetches no heap row) keeps its own count.
    const planned = { ...statement, plan: nestedLoop, tableReads: { orders: { seqScans: 0, rows: 2 } } };
    expect(totalRowsExamined([planned])).toEqual({ partner_profiles: 50, orders: 5 });
  });

  it('reports growth beyond the ratio and the slack, and nothing within them', () => {
    expect(growth({ quotes: 10 }, { quotes: 16 })).toEqual([]);
    expect(growth({ quotes: 10 }, { quotes: 17 })).toEqual(['quotes: 10 → 17']);
    expect(growth({}, { orders: 4 })).toEqual([]);
    expect(growth({}, { orders: 5 })).toEqual(['orders: 0 → 5']);
    expect(growth({ orders: 100 }, { orders: 125 }, { ratio: 1.2, slackRows: 0 })).toEqual(['orders: 100 → 125']);
  });
});
