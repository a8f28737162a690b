import { costRows, historyRows, ordersText } from './cost-rows';

function cost(overrides: { cpu?: number; trading?: number; unfinished?: number } = {}) {
  const tradingRows = overrides.trading ?? 40;
  return {
    orders: 800,
    unfinished: overrides.unfinished ?? 0,
    cpuMsPerOrder: {
      gateway: 5,
      trading: 10,
      postgresql: overrides.cpu ?? 16,
      redis: 0.25,
      total: 15.25 + (overrides.cpu ?? 16),
    },
    databases: {
      svc_trading: { commits: 11.7, rowsRead: 376, rowsInserted: 4, rowsUpdated: 3 },
      svc_ledger: { commits: 6.7, rowsRead: 80, rowsInserted: 7, rowsUpdated: 5 },
      svc_notifier: { commits: 0, rowsRead: 0.1, rowsInserted: 0, rowsUpdated: 0 },
    },
    tables: {
      svc_trading: {
        cap_usages: { rowsRead: tradingRows - 10, seqScans: 0, indexScans: 1 },
        orders: { rowsRead: 10, seqScans: 0, indexScans: 3 },
        outbox: { rowsRead: 0.25, seqScans: 0, indexScans: 1 },
      },
      svc_ledger: { accounts: { rowsRead: 20, seqScans: 1, indexScans: 4 } },
    },
  };
}

describe('cost rows', () => {
  it('puts the targets on the CPU and commit totals and lists processes, databases and tables beside them', () => {
    const rows = costRows(cost(), { section: 'cost', judged: true });
    expect(rows[0]).toMatchObject({ id: 'cost.cpu.total', value: 31.25 });
    expect(rows.slice(1, 5).map((row) => row.figure)).toEqual([
      '  CPU ms per order: postgresql',
      '  CPU ms per order: trading',
      '  CPU ms per order: gateway',
      '  CPU ms per order: redis',
    ]);
    const commits = rows.find((row) => row.id === 'cost.commits.total');
    expect(commits?.value).toBeCloseTo(18.4);
    expect(rows.map((row) => row.figure)).toContain(
      '  svc_trading commits per order (rows read 376.0 = returned + fetched, inserted 4.0, updated 3.0)',
    );
    // Below half a row and a hundredth of a commit per order, left to the JSON.
    expect(rows.some((row) => row.figure.includes('svc_notifier') || row.figure.includes('outbox'))).toBe(false);
    expect(rows.find((row) => row.figure.includes('svc_trading.cap_usages'))?.value).toBe(30);
  });

  it('leaves the targets off when not judged, and marks every row when orders did not settle in time', () => {
    const rows = costRows(cost({ unfinished: 3 }), { section: 'cost', judged: false });
    expect(rows.every((row) => row.id === undefined)).toBe(true);
    expect(
      rows.every(
        (row) => row.invalid === '3 of 800 orders did not end (settled, rejected, expired) with their webhook in time',
      ),
    ).toBe(true);
  });
});

describe('history rows', () => {
  const run = (ordersPerSecond: number, c: ReturnType<typeof cost>, failures = {}) => ({
    load: { ordersPerSecond, latency: { p50Ms: 100, p99Ms: 200 }, failures },
    cost: c,
  });

  it('sets each figure with history beside the same figure without, trading rows read judged as a ratio', () => {
    const rows = historyRows({
      withHistory: run(30, cost({ trading: 100_040, cpu: 60 })),
      without: run(40, cost()),
      count: 100_000,
      section: 'volume',
    });
    expect(rows[0]).toMatchObject({ id: 'volume.ordersPerSecond', value: 30, ceilingValue: 40 });
    expect(rows[0].figure).toContain('100,000 earlier orders');
    expect(rows[1]).toMatchObject({ id: 'volume.tradingRowsRead', value: 100_040.25, ceilingValue: 40.25 });
    expect(rows.find((row) => row.figure.includes('svc_trading.cap_usages'))).toMatchObject({
      value: 100_030,
      ceilingValue: 30,
    });
    expect(rows.find((row) => row.figure.startsWith('CPU ms per order'))).toMatchObject({
      value: 75.25,
      ceilingValue: 31.25,
    });
  });

  it("prints the orders section's earlier run beside, unjudged, when given", () => {
    const rows = historyRows({
      withHistory: run(30, cost()),
      without: run(32, cost()),
      earlier: run(40, cost()),
      count: 100_000,
      section: 'volume',
    });
    expect(rows[0]).toMatchObject({ id: 'volume.ordersPerSecond', value: 30, ceilingValue: 32 });
    expect(rows[1]).toMatchObject({ value: 30, ceilingValue: 40 });
    expect(rows[1].id).toBeUndefined();
    expect(rows[1].figure).toContain("beside the orders section's run");
    expect(rows.filter((row) => row.id === 'volume.tradingRowsRead')).toHaveLength(1);
  });

  it('judges trading rows read over the tables holding the partner orders when named, every table beside', () => {
    const withHistory = run(30, cost({ trading: 45 }));
    withHistory.cost.tables.svc_trading.outbox.rowsRead = 20;
    const rows = historyRows({
      withHistory,
      without: run(32, cost({ trading: 45 })),
      historyTables: ['orders', 'cap_usages'],
      count: 100_000,
      section: 'volume',
    });
    const judged = rows.filter((row) => row.id === 'volume.tradingRowsRead');
    expect(judged).toHaveLength(1);
    expect(judged[0]).toMatchObject({ value: 45, ceilingValue: 45 });
    expect(judged[0].figure).toContain('(orders, cap_usages)');
    expect(rows.find((row) => row.figure.startsWith('  trading rows read per order, every table'))).toMatchObject({
      value: 65,
      ceilingValue: 45.25,
    });
  });

  it('fails the throughput comparison whatever its value when orders failed under history', () => {
    const rows = historyRows({
      withHistory: run(40, cost(), { 'buy 503': 23 }),
      without: run(40, cost()),
      count: 100_000,
      section: 'volume',
    });
    expect(rows[0]).toMatchObject({ id: 'volume.ordersPerSecond', unmet: 'failed: 23 × buy 503' });
  });
});

describe('orders counted', () => {
  it('says when more orders were created than answered 202 (a create answered 503 may still make its order)', () => {
    expect(ordersText({ orders: 800, answered: 800 })).toBe('800 orders');
    expect(ordersText({ orders: 115, answered: 92 })).toBe('115 orders created, 92 answered 202');
  });
});
