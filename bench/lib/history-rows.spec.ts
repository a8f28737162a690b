import { verdict } from './figures';
import { historyComparisonRows, historyScale, historySizes, seedingRows } from './history-rows';

function run(overrides: { ordersPerSecond?: number; p99Ms?: number; capUsages?: number; deliveries?: number } = {}) {
  const read = { requestsPerSecond: 900, p50Ms: 10, p99Ms: 30, non2xx: 0, errors: 0 };
  return {
    load: {
      ordersPerSecond: overrides.ordersPerSecond ?? 100,
      latency: { p50Ms: 50, p99Ms: overrides.p99Ms ?? 200 },
      failures: {},
    },
    cost: {
      orders: 2000,
      unfinished: 0,
      cpuMsPerOrder: { trading: 4, 'webhook-delivery': 1, total: 12 },
      databases: { svc_trading: { commits: 5, rowsRead: 30, rowsInserted: 4, rowsUpdated: 2 } },
      tables: {
        svc_trading: { cap_usages: { rowsRead: overrides.capUsages ?? 2, seqScans: 0, indexScans: 1 } },
        svc_webhook_delivery: { deliveries: { rowsRead: overrides.deliveries ?? 0, seqScans: 0, indexScans: 1 } },
      },
    },
    reads: { 'GET /v1/orders/{id}': read },
  };
}

const rowsOf = (seeded: ReturnType<typeof run>) =>
  historyComparisonRows({ seeded, empty: run(), label: '100 earlier orders', section: 'history' });

describe('historyScale', () => {
  it('is null without --history, full with no size after it, and the named scale otherwise', () => {
    expect(historyScale(['--other'])).toBeNull();
    expect(historyScale(['--history'])).toEqual({ name: 'full', factor: 1 });
    expect(historyScale(['--history', '--x'])).toEqual({ name: 'full', factor: 1 });
    expect(historyScale(['--history', 'small'])).toEqual({ name: 'small', factor: 0.01 });
    expect(historyScale(['--history', 'large'])).toEqual({ name: 'large', factor: 10 });
    expect(() => historyScale(['--history', 'huge'])).toThrow(/small, full, large/);
  });
});

describe('historySizes', () => {
  it('scales the background partner’s orders and transfers and the hot partner’s orders', () => {
    expect(historySizes(1)).toEqual({
      partners: 10_000,
      backgroundOrders: 1_000_000,
      backgroundTransfers: 1_000_000,
      hotOrders: 100_000,
      backgroundSpanDays: 90,
      webhookDeliveries: 1_000_000,
    });
    expect(historySizes(0.01)).toMatchObject({
      partners: 100,
      backgroundOrders: 10_000,
      backgroundTransfers: 10_000,
      hotOrders: 1_000,
    });
    expect(historySizes(10)).toMatchObject({
      backgroundOrders: 10_000_000,
      backgroundTransfers: 10_000_000,
      hotOrders: 1_000_000,
    });
  });
});

describe('historyComparisonRows', () => {
  it('meets every target when the seeded run matches the empty one', () => {
    const judged = rowsOf(run()).filter((row) => row.id);
    expect(judged.length).toBeGreaterThanOrEqual(7);
    expect(judged.map((row) => verdict(row))).toEqual(judged.map(() => 'met'));
  });

  it('fails a throughput more than 15 % below, a latency more than 15 % above and rows read past 1.2×', () => {
    const rows = rowsOf(run({ ordersPerSecond: 80, p99Ms: 240, capUsages: 2.6 }));
    const verdictOf = (part: string) => verdict(rows.find((row) => row.figure.includes(part))!);
    expect(verdictOf('orders/s')).toBe('NOT MET');
    expect(verdictOf('order (quote + buy) p99')).toBe('NOT MET');
    expect(verdictOf('order (quote + buy) p50')).toBe('met');
    expect(verdictOf('svc_trading.cap_usages')).toBe('NOT MET');
  });

  it('judges rows read against the partner without earlier orders on the seeded database when there is one', () => {
    const rows = historyComparisonRows({
      seeded: run({ capUsages: 10 }),
      empty: run({ capUsages: 4 }),
      fresh: run({ capUsages: 9 }),
      label: '100 earlier orders',
      section: 'history',
    }).filter((row) => row.figure.includes('svc_trading.cap_usages'));
    expect(rows.map((row) => [row.ceilingValue, row.id ? verdict(row) : 'not judged'])).toEqual([
      [9, 'met'],
      [4, 'not judged'],
    ]);
    const fresher = historyComparisonRows({
      seeded: run({ capUsages: 12 }),
      empty: run({ capUsages: 12 }),
      fresh: run({ capUsages: 9 }),
      label: '100 earlier orders',
      section: 'history',
    }).find((row) => row.id === 'history.rowsRead' && row.figure.includes('svc_trading.cap_usages'))!;
    expect(verdict(fresher)).toBe('NOT MET');
  });

  it('fails a table read only with history', () => {
    const row = rowsOf(run({ deliveries: 3 })).find((candidate) => candidate.figure.includes('deliveries'))!;
    expect(verdict(row)).toBe('NOT MET: read only with history');
  });
});

describe('seedingRows', () => {
  it('projects the databases’ growth per million orders to 100 million', () => {
    const rows = seedingRows({
      seedings: [{ what: 'hot partner', span: '23 hours', count: 1000, durationMs: 4000 }],
      sizes: { 'svc_trading.orders': { tableBytes: 2 * 2 ** 20, indexBytes: 2 ** 20, liveRows: 1000 } },
      growthBytes: 500 * 2 ** 20,
      ordersSeeded: 500_000,
      section: 'sizes',
    });
    expect(rows.find((row) => row.figure.startsWith('  svc_trading.orders'))!.value).toBe(3);
    expect(rows.find((row) => row.figure.startsWith('disk MiB per million'))!.value).toBe(1000);
    expect(rows.find((row) => row.figure.startsWith('disk GiB projected'))!.value).toBeCloseTo(97.7, 1);
    expect(rows.some((row) => row.figure.includes('transfers'))).toBe(false);
  });

  it('gives the transfers’ disk per million from their own seeding’s growth, apart from the orders’', () => {
    const rows = seedingRows({
      seedings: [],
      sizes: {},
      growthBytes: 500 * 2 ** 20,
      ordersSeeded: 500_000,
      transfers: { growthBytes: 30 * 2 ** 20, count: 10_000 },
      section: 'sizes',
    });
    expect(rows.find((row) => row.figure.startsWith('disk MiB per million orders'))!.value).toBe(1000);
    expect(rows.find((row) => row.figure.startsWith('disk MiB per million transfers'))!.value).toBe(3000);
  });

  it('prints each seeding step of at least half a second in seconds, longest first', () => {
    const rows = seedingRows({
      seedings: [
        {
          what: 'hot partner',
          span: '23 hours',
          count: 1000,
          durationMs: 4000,
          timings: { 'svc_ledger.postings': 1500, commit: 20, 'svc_trading.orders': 2250 },
        },
      ],
      sizes: {},
      growthBytes: 0,
      ordersSeeded: 1000,
      section: 'sizes',
    });
    const steps = rows.filter((row) => row.figure.startsWith('  hot partner:'));
    expect(steps.map((row) => [row.figure, row.value])).toEqual([
      ['  hot partner: svc_trading.orders, s', 2.3],
      ['  hot partner: svc_ledger.postings, s', 1.5],
    ]);
  });
});
