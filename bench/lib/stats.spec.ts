import { boundedInt, parseSections } from './options';
import { failureText, loadInvalid, parsePgbench, percentile, summarise } from './stats';

describe('latency summaries', () => {
  it('takes the nearest-rank percentile', () => {
    const sorted = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    expect(percentile(sorted, 1)).toBe(100);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNull();
  });

  it('summarises latencies in any order', () => {
    expect(summarise([3, 1, 2, 100])).toEqual({ count: 4, p50Ms: 2, p95Ms: 100, p99Ms: 100, maxMs: 100 });
    expect(summarise([])).toMatchObject({ count: 0, p50Ms: null });
  });
});

describe('failures', () => {
  it('reads as one line, empty when none', () => {
    expect(failureText({ 'buy 503': 23, 'quote 429': 1 })).toBe('23 × buy 503, 1 × quote 429');
    expect(failureText({})).toBe('');
    expect(failureText(undefined)).toBe('');
  });

  it('says which statuses made a load invalid, and nothing of a clean one', () => {
    const load = { non2xx: 0, errors: 0, statusCodes: { 200: 9000 } };
    expect(loadInvalid(load)).toBeUndefined();
    expect(loadInvalid({ ...load, non2xx: 15, statusCodes: { 200: 9000, 429: 14, 503: 1 } })).toBe(
      '15 non-2xx (14 × 429, 1 × 503), 0 errors',
    );
    // Figures recorded before statuses were kept.
    expect(loadInvalid({ non2xx: 3, errors: 2 })).toBe('3 non-2xx, 2 errors');
  });
});

describe("pgbench's report", () => {
  it('reads tps without connection time and the latency average', () => {
    const output =
      'number of transactions actually processed: 19230\nlatency average = 10.402 ms\ninitial connection time = 8.1 ms\ntps = 1922.7131 (without initial connection time)\n';
    expect(parsePgbench(output)).toEqual({ tps: 1922.7, latencyAverageMs: 10.402 });
  });

  it('refuses a report without tps', () => {
    expect(() => parsePgbench('FATAL: database does not exist')).toThrow('pgbench printed no tps');
  });
});

describe('bench options', () => {
  it('reads a bounded integer, with its default when unset', () => {
    expect(boundedInt({ X: '20' }, 'X', 5, 1, 100)).toBe(20);
    expect(boundedInt({}, 'X', 5, 1, 100)).toBe(5);
    expect(() => boundedInt({ X: '0' }, 'X', 5, 1, 100)).toThrow('X must be an integer 1..100');
    expect(() => boundedInt({ X: '2.5' }, 'X', 5, 1, 100)).toThrow();
    expect(() => boundedInt({ X: 'lots' }, 'X', 5, 1, 100)).toThrow();
  });

  it('picks sections in their own order, all of them with "all", the defaults when unset, and refuses unknown ones', () => {
    const known = ['sequential', 'gateway', 'orders', 'ledger'];
    expect(parseSections('orders, sequential', known, ['gateway'])).toEqual(['sequential', 'orders']);
    expect(parseSections(undefined, known, ['gateway'])).toEqual(['gateway']);
    expect(parseSections('all', known, ['gateway'])).toEqual(known);
    expect(() => parseSections('orders,memory', known, [])).toThrow('unknown section(s) memory');
  });
});
