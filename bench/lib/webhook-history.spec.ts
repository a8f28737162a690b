// What the webhook rows' history is built from, without a database: the option the child
// bench reads (bounded, and the same sizes the history section asks for), the chunks and
// creation times the seeding uses (every index once, every row inside the retention window
// less its margin), and the rows that judge a seeded run against an empty one (through the
// bench's own verdict, so a regression past a target reads NOT MET).
import { verdict } from './figures';
import { historySizes } from './history-rows';
import {
  CHUNK_DELIVERIES,
  SEED_DELIVERIES_SQL,
  WINDOW_MARGIN_MS,
  historyChunks,
  historySpan,
  rowsReadPerDelivery,
  webhookHistoryEnv,
  webhookHistoryOptions,
  webhookHistoryRows,
} from './webhook-history';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('webhookHistoryOptions', () => {
  it('is null (the plain bench) when the deliveries are unset or 0', () => {
    expect(webhookHistoryOptions({})).toBeNull();
    expect(webhookHistoryOptions({ BENCH_WEBHOOK_HISTORY_DELIVERIES: '0' })).toBeNull();
  });

  it('reads what the history section asks for at each scale', () => {
    for (const factor of [0.01, 1, 10]) {
      const sizes = historySizes(factor);
      const env = webhookHistoryEnv({ deliveries: sizes.webhookDeliveries, partners: sizes.partners });
      expect(webhookHistoryOptions(env)).toEqual({ deliveries: sizes.webhookDeliveries, partners: sizes.partners });
    }
    expect(historySizes(0.01).webhookDeliveries).toBe(10_000);
  });

  it('refuses values out of bounds or not integers', () => {
    expect(() => webhookHistoryOptions({ BENCH_WEBHOOK_HISTORY_DELIVERIES: '-1' })).toThrow(/0\.\.20000000/);
    expect(() => webhookHistoryOptions({ BENCH_WEBHOOK_HISTORY_DELIVERIES: '1e9' })).toThrow();
    expect(() =>
      webhookHistoryOptions({ BENCH_WEBHOOK_HISTORY_DELIVERIES: '10', BENCH_WEBHOOK_HISTORY_PARTNERS: '0' }),
    ).toThrow(/BENCH_WEBHOOK_HISTORY_PARTNERS/);
    expect(() => webhookHistoryOptions({ BENCH_WEBHOOK_HISTORY_DELIVERIES: 'many' })).toThrow();
  });
});

describe('historyChunks', () => {
  it('covers every index once, in chunks of at most the chunk size', () => {
    const chunks = historyChunks(2 * CHUNK_DELIVERIES + 7);
    expect(chunks.map((chunk) => chunk.count)).toEqual([CHUNK_DELIVERIES, CHUNK_DELIVERIES, 7]);
    chunks.forEach((chunk, index) => expect(chunk.first).toBe(index * CHUNK_DELIVERIES));
    expect(historyChunks(3, 2)).toEqual([
      { first: 0, count: 2 },
      { first: 2, count: 1 },
    ]);
    expect(historyChunks(0)).toEqual([]);
  });

  it('refuses a chunk size that would never end', () => {
    expect(() => historyChunks(10, 0)).toThrow();
  });
});

describe('historySpan', () => {
  it('creates every row inside the window less its margin, the last before now', () => {
    const nowMs = Date.UTC(2026, 10, 27, 12);
    const windowMs = 60 * DAY_MS;
    const deliveries = 1_000;
    const { startMs, stepMs } = historySpan({ nowMs, windowMs, deliveries });
    expect(startMs).toBe(nowMs - windowMs + WINDOW_MARGIN_MS);
    const last = startMs + (deliveries - 1) * stepMs;
    expect(last).toBeLessThan(nowMs);
    expect(last).toBeGreaterThan(nowMs - 2 * stepMs);
  });

  it('refuses a window no longer than its margin', () => {
    expect(() => historySpan({ nowMs: 0, windowMs: WINDOW_MARGIN_MS, deliveries: 10 })).toThrow();
  });
});

describe('SEED_DELIVERIES_SQL', () => {
  it('writes through the partitioned parents, finished and numbered in the feed', () => {
    expect(SEED_DELIVERIES_SQL).toContain('INSERT INTO webhook_deliveries (');
    expect(SEED_DELIVERIES_SQL).toContain('INSERT INTO webhook_delivery_attempts (');
    expect(SEED_DELIVERIES_SQL).toMatch(/'delivered'/);
    expect(SEED_DELIVERIES_SQL).toMatch(/feed_position/);
  });
});

describe('rowsReadPerDelivery', () => {
  it('divides each table’s rows read by the deliveries and leaves out tables not read', () => {
    expect(
      rowsReadPerDelivery(
        {
          endpoints: { rowsRead: 4_000 },
          deliveries: { rowsRead: 0 },
          webhook_deliveries_20261123: { rowsRead: 6_000 },
        },
        2_000,
      ),
    ).toEqual({ endpoints: 2, webhook_deliveries_20261123: 3 });
  });
});

type Run = {
  workers: number;
  deliveriesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  commitsPerDelivery: number;
  rowsReadPerDelivery: Record<string, number>;
};

function run(workers: number, overrides: Partial<Run> = {}): Run {
  return {
    workers,
    deliveriesPerSecond: 600 * workers,
    p50Ms: 40,
    p99Ms: 120,
    commitsPerDelivery: 1.2,
    rowsReadPerDelivery: { endpoints: 2, webhook_deliveries_20261123: 3 },
    ...overrides,
  };
}

const rowsOf = (seeded: Run[], empty: Run[] = [run(1), run(2)]) =>
  webhookHistoryRows({
    seeded: { results: seeded },
    empty: { results: empty },
    label: '10,000 deliveries',
    section: 'h',
  });
const verdictsOf = (rows: ReturnType<typeof rowsOf>, figure: RegExp) =>
  rows.filter((row: { figure: string }) => figure.test(row.figure)).map((row: object) => verdict(row));

describe('webhookHistoryRows', () => {
  it('meets every target when the seeded runs match the empty ones', () => {
    const judged = rowsOf([run(1), run(2)]).filter((row: { id?: string }) => row.id);
    // Per worker count: deliveries/s, p50, p99 and two tables' rows read.
    expect(judged).toHaveLength(10);
    expect(judged.map((row: object) => verdict(row))).toEqual(judged.map(() => 'met'));
  });

  it('fails deliveries/s more than 15 % below, p99 more than 15 % above and rows read past 1.2×', () => {
    const rows = rowsOf([
      run(1, {
        deliveriesPerSecond: 500,
        p99Ms: 140,
        rowsReadPerDelivery: { endpoints: 2.5, webhook_deliveries_20261123: 3 },
      }),
      run(2, { deliveriesPerSecond: 1_100 }),
    ]);
    expect(verdictsOf(rows, /deliveries\/s, one worker/)).toEqual(['NOT MET']);
    expect(verdictsOf(rows, /deliveries\/s, 2 workers/)).toEqual(['met']);
    expect(verdictsOf(rows, /p99 ms, one worker/)).toEqual(['NOT MET']);
    expect(verdictsOf(rows, /endpoints, one worker/)).toEqual(['NOT MET']);
    expect(verdictsOf(rows, /webhook_deliveries_20261123, one worker/)).toEqual(['met']);
  });

  it('fails a table read only with history, and leaves out tables read less than half a row in both', () => {
    const rows = rowsOf(
      [
        run(1, {
          rowsReadPerDelivery: { endpoints: 2, webhook_deliveries_20261123: 3, deliveries: 40, partner_retries: 0.1 },
        }),
      ],
      [run(1)],
    );
    expect(verdictsOf(rows, /svc_webhook_delivery\.deliveries,/)).toEqual(['NOT MET: read only with history']);
    expect(rows.some((row: { figure: string }) => row.figure.includes('partner_retries'))).toBe(false);
  });

  it('marks a worker count the empty run did not measure as invalid', () => {
    const rows = rowsOf([run(1), run(2)], [run(1)]);
    expect(verdictsOf(rows, /2 workers: no empty run/)).toEqual(['INVALID: not measured on the empty database']);
  });
});
