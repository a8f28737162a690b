/**
 * The sandbox market: a random walk around a configured mid. Each tick moves
 * the mid by at most RANDOM_WALK_STEP_BPS_MAX of the configured mid, in a
 * direction and size drawn from node:crypto, and the walk is clamped within
 * RANDOM_WALK_BAND_BPS (±5%) of the configured mid. Bid and ask sit half the
 * spread either side of the current mid and carry more than 4 decimals, as a
 * real feed would, so the quote's rounding of the feed is exercised.
 */
import { randomInt } from 'node:crypto';
import { Big, roundDown } from '@platform/money';

export const RANDOM_WALK_STEP_BPS_MAX = 5;
export const RANDOM_WALK_BAND_BPS = 500;
/** Number of distinct step sizes on each side of zero. */
export const RANDOM_WALK_STEP_RESOLUTION = 1_000;
/** Decimals the walking mid keeps, so its digits stay bounded however long it walks. */
export const RANDOM_WALK_MID_SCALE = 8;
export const SPREAD_BPS_MAX = 2_000;

const BPS_PER_UNIT = 10_000;
// Exact decimal fractions, so the walk multiplies and never divides (no rounding mode involved).
const ONE_BPS = new Big('0.0001');
/** 1 / (2 × 10000): half a basis point, to place bid and ask either side of the mid. */
const HALF_BPS = new Big('0.00005');
/** 1 / RANDOM_WALK_STEP_RESOLUTION. */
const STEP_FRACTION = new Big('0.001');

/** Uniform integer in [min, maxExclusive). */
export type RandomIntSource = (min: number, maxExclusive: number) => number;

export interface RandomWalkOptions {
  midKes: Big;
  spreadBps: number;
  random?: RandomIntSource;
}

export class RandomWalk {
  private currentKes: Big;
  private readonly lowKes: Big;
  private readonly highKes: Big;
  private readonly stepUnitKes: Big;
  private readonly random: RandomIntSource;

  constructor(private readonly options: RandomWalkOptions) {
    if (options.midKes.lte(0)) throw new RangeError('RandomWalk: mid must be positive');
    if (!Number.isInteger(options.spreadBps) || options.spreadBps < 0 || options.spreadBps > SPREAD_BPS_MAX) {
      throw new RangeError(`RandomWalk: spread must be an integer 0..${SPREAD_BPS_MAX} bps`);
    }
    this.currentKes = options.midKes;
    this.lowKes = options.midKes.times(BPS_PER_UNIT - RANDOM_WALK_BAND_BPS).times(ONE_BPS);
    this.highKes = options.midKes.times(BPS_PER_UNIT + RANDOM_WALK_BAND_BPS).times(ONE_BPS);
    this.stepUnitKes = options.midKes.times(RANDOM_WALK_STEP_BPS_MAX).times(ONE_BPS).times(STEP_FRACTION);
    this.random = options.random ?? randomInt;
  }

  /** Moves the mid one step, staying inside the band. */
  step(): void {
    const units = this.random(-RANDOM_WALK_STEP_RESOLUTION, RANDOM_WALK_STEP_RESOLUTION + 1);
    const next = roundDown(this.currentKes.plus(this.stepUnitKes.times(units)), RANDOM_WALK_MID_SCALE);
    this.currentKes = next.lt(this.lowKes) ? this.lowKes : next.gt(this.highKes) ? this.highKes : next;
  }

  midKes(): Big {
    return this.currentKes;
  }

  /** bid = mid × (1 − spread/2), ask = mid × (1 + spread/2); exact products, no division. */
  quote(): { bid: Big; ask: Big } {
    const spread = this.options.spreadBps;
    return {
      bid: this.currentKes.times(2 * BPS_PER_UNIT - spread).times(HALF_BPS),
      ask: this.currentKes.times(2 * BPS_PER_UNIT + spread).times(HALF_BPS),
    };
  }
}
