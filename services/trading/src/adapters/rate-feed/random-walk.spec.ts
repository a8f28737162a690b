// Proves the sandbox market's bounds: each step moves the mid by at most
// RANDOM_WALK_STEP_BPS_MAX of the configured mid, the walk never leaves ±5%,
// and bid/ask straddle the mid by exactly half the spread each, with more than
// 4 decimals (so quoting must round them).
import { Big } from '@platform/money';
import { RANDOM_WALK_STEP_RESOLUTION, RandomWalk } from './random-walk';

const mid = new Big('129.50');

describe('RandomWalk', () => {
  it('places bid and ask half the spread either side of the mid', () => {
    const walk = new RandomWalk({ midKes: mid, spreadBps: 50, random: () => 0 });
    // 129.50 × (1 ∓ 0.0025)
    expect(walk.quote().bid.toString()).toBe('129.17625');
    expect(walk.quote().ask.toString()).toBe('129.82375');
  });

  it('moves at most 5 bps of the mid per tick', () => {
    const walk = new RandomWalk({ midKes: mid, spreadBps: 0, random: () => RANDOM_WALK_STEP_RESOLUTION });
    walk.step();
    // 129.50 × 0.0005 = 0.06475
    expect(walk.midKes().toString()).toBe('129.56475');
  });

  it('stays within ±5% of the configured mid however long it drifts', () => {
    const up = new RandomWalk({ midKes: mid, spreadBps: 0, random: () => RANDOM_WALK_STEP_RESOLUTION });
    const down = new RandomWalk({ midKes: mid, spreadBps: 0, random: () => -RANDOM_WALK_STEP_RESOLUTION });
    for (let i = 0; i < 500; i += 1) {
      up.step();
      down.step();
    }
    expect(up.midKes().toString()).toBe('135.975'); // 129.50 × 1.05
    expect(down.midKes().toString()).toBe('123.025'); // 129.50 × 0.95
  });

  it('walks with crypto randomness by default and stays in the band', () => {
    const walk = new RandomWalk({ midKes: mid, spreadBps: 50 });
    for (let i = 0; i < 1_000; i += 1) walk.step();
    expect(walk.midKes().gte('123.025') && walk.midKes().lte('135.975')).toBe(true);
    expect(walk.quote().ask.gt(walk.quote().bid)).toBe(true);
  });

  it('refuses a non-positive mid or an out-of-range spread', () => {
    expect(() => new RandomWalk({ midKes: new Big(0), spreadBps: 50 })).toThrow(RangeError);
    expect(() => new RandomWalk({ midKes: mid, spreadBps: 2001 })).toThrow(RangeError);
  });
});
