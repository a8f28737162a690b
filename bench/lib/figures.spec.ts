import { formatNumber, formatTable, ratioOf, rowCells, tally, TARGETS, verdict } from './figures';

describe('the targets table', () => {
  it('judges every figure of the target table, with the must-reach and aim it gives', () => {
    expect(TARGETS['gateway.health.express']).toEqual({ judged: 'ratio', must: ['>=', 0.5], aim: ['>=', 0.7] });
    expect(TARGETS['orders.closedLoop']).toEqual({ judged: 'value', must: ['>=', 150], aim: ['>=', 250] });
    expect(TARGETS['sequential.buy']).toEqual({ judged: 'value', must: ['<=', 15], aim: ['<=', 8] });
    expect(TARGETS['cost.cpu.total']).toEqual({ judged: 'value', must: ['<=', 13], aim: ['<=', 8] });
    expect(TARGETS['cost.commits.total']).toEqual({ judged: 'value', must: ['<=', 12], aim: ['<=', 8] });
    expect(TARGETS['webhooks.oneWorker']).toEqual({ judged: 'value', must: ['>=', 500], aim: ['>=', 1000] });
    expect(TARGETS['memory.peak']).toEqual({ judged: 'value', must: ['<=', 160] });
  });

  it("holds a page of 100 to one order read's latency budget, p50 ms of one client", () => {
    const budget = { judged: 'value', must: ['<=', 4], aim: ['<=', 2] };
    expect(TARGETS['sequential.order']).toEqual(budget);
    expect(TARGETS['gateway.eventsPage']).toEqual(budget);
    expect(TARGETS['gateway.statementPage']).toEqual(budget);
    const page = { id: 'gateway.eventsPage', value: 2.5, ceilingValue: 1.9 };
    expect(verdict(page)).toBe('met, aim not');
    expect(verdict({ ...page, value: 1.8 })).toBe('met, aim met');
    expect(verdict({ ...page, value: 4.2 })).toBe('NOT MET');
  });
});

describe('ratio and verdict', () => {
  const health = (value: number, ceilingValue: number) => ({
    id: 'gateway.health.express',
    figure: 'health',
    value,
    ceiling: 'express',
    ceilingValue,
  });

  it('divides the figure by its ceiling when both are numbers', () => {
    expect(ratioOf(health(500, 1000))).toBe(0.5);
    expect(ratioOf({ figure: 'x', value: '1 / 2', ceilingValue: 4 })).toBeNull();
    expect(ratioOf({ figure: 'x', value: 3, ceilingValue: 0 })).toBeNull();
  });

  it('judges a ratio target on the ratio: not met, met, aim met', () => {
    expect(verdict(health(400, 1000))).toBe('NOT MET');
    expect(verdict(health(500, 1000))).toBe('met, aim not');
    expect(verdict(health(700, 1000))).toBe('met, aim met');
  });

  it('judges an upper bound on the value', () => {
    expect(verdict({ id: 'sequential.health', figure: 'health p50', value: 4 })).toBe('NOT MET');
    expect(verdict({ id: 'sequential.health', figure: 'health p50', value: 1.5 })).toBe('met, aim not');
    expect(verdict({ id: 'sequential.health', figure: 'health p50', value: 0.9 })).toBe('met, aim met');
  });

  it('judges an aim-only figure as aim met or not', () => {
    expect(verdict({ id: 'orders.fixedRateP99', figure: 'p99', value: 149 })).toBe('aim met');
    expect(verdict({ id: 'orders.fixedRateP99', figure: 'p99', value: 151 })).toBe('aim not met');
  });

  it('says why a figure cannot be judged or fails whatever its value', () => {
    expect(verdict({ ...health(900, 1000), invalid: '3 non-2xx' })).toBe('INVALID: 3 non-2xx');
    expect(verdict({ id: 'orders.fixedRateP99', figure: 'p99', value: 20, unmet: 'rate not sustained' })).toBe(
      'NOT MET: rate not sustained',
    );
    expect(verdict({ id: 'sequential.health', figure: 'x', value: null })).toBe('no value');
    expect(verdict({ figure: 'no target', value: 3 })).toBe('');
  });

  it('counts must-reach rows met, not met and without a value', () => {
    const rows = [
      health(400, 1000),
      health(600, 1000),
      { id: 'memory.idle', figure: 'idle', value: null },
      { figure: 'untargeted', value: 1 },
      { id: 'orders.fixedRateP99', figure: 'aim only', value: 1 },
    ];
    expect(tally(rows)).toEqual({ met: 1, notMet: 1, unjudged: 1 });
  });
});

describe('the printed table', () => {
  it('formats numbers for reading', () => {
    expect(formatNumber(1922.7)).toBe('1,923');
    expect(formatNumber(150)).toBe('150');
    expect(formatNumber(43.52)).toBe('43.5');
    expect(formatNumber(4.256)).toBe('4.26');
    expect(formatNumber(null)).toBe('');
    expect(formatNumber('12 / 40')).toBe('12 / 40');
  });

  it('prints each figure beside its ceiling, ratio, targets and verdict', () => {
    expect(
      rowCells({
        id: 'gateway.quote.express',
        figure: 'POST /v1/quotes req/s',
        value: 300,
        ceiling: 'express req/s',
        ceilingValue: 2000,
      }),
    ).toEqual([
      'POST /v1/quotes req/s',
      '300',
      'express req/s',
      '2,000',
      '0.15',
      'ratio ≥ 0.2',
      'ratio ≥ 0.3',
      'NOT MET',
    ]);
  });

  it('groups rows under their section titles, columns aligned', () => {
    const text = formatTable([
      {
        section: 'gateway',
        id: 'gateway.health.express',
        figure: 'health req/s',
        value: 1400,
        ceiling: 'express',
        ceilingValue: 2000,
      },
      { section: 'gateway', figure: 'balances req/s', value: 500 },
      { section: 'memory', id: 'memory.idle', figure: 'gateway idle', value: 92 },
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(
      /^figure\s+value\s+ceiling \(same run\)\s+ceiling value\s+ratio\s+must reach\s+aim\s+verdict$/,
    );
    expect(lines[2]).toBe('[gateway]');
    expect(lines[3]).toMatch(
      /^health req\/s\s+1,400\s+express\s+2,000\s+0\.70\s+ratio ≥ 0\.5\s+ratio ≥ 0\.7\s+met, aim met$/,
    );
    expect(lines[5]).toBe('[memory]');
    expect(lines[6]).toMatch(/gateway idle\s+92\s+.*≤ 120\s+met$/);
    expect(lines[3].indexOf('express')).toBe(lines[0].indexOf('ceiling (same run)'));
    expect(lines[3].indexOf('1,400') + '1,400'.length).toBe(lines[0].indexOf('value') + 'value'.length);
  });
});
