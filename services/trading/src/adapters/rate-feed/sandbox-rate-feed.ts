/**
 * The sandbox rate feed. One random walk per process ticks every RATE_TICK_MS;
 * each tick is an observation (observedAt = the tick's time). A partner may be
 * pinned (POST /v1/sandbox/rates): its bid and ask are then fixed, stored in
 * the trading database so every trading replica quotes the same pin. A pinned
 * rate keeps being observed at every tick, unless it is halted: then its
 * observedAt stays at the moment it was halted and it goes stale after the
 * staleness limit, which is how RATE_UNAVAILABLE is exercised.
 *
 * The unpinned walk is per process: two replicas walk independently. That is
 * acceptable for a simulated market; a partner that needs one exact rate pins it.
 */
import type { Logger } from '@platform/logger';
import type { Big } from '@platform/money';
import type { Clock } from '../../domain/clock';
import type { SandboxRatePin } from '../../domain/sandbox-rate';
import type { FeedRate, RateFeed, SandboxRateControl } from './rate-feed';
import type { RandomWalk } from './random-walk';

export interface SandboxRateOverride {
  partnerId: string;
  bid: Big;
  ask: Big;
  /** Set when halted: the observation time frozen at the moment of halting. */
  haltedAt: Date | null;
}

/** Storage of pins, shared by all trading replicas (persistence/sandbox-rate-overrides.repository.ts). */
export interface SandboxRateOverrideStore {
  find(partnerId: string): Promise<SandboxRateOverride | null>;
  /** The pins of those of `partnerIds` that have one, by partner, in one read. */
  findMany(partnerIds: readonly string[]): Promise<Map<string, SandboxRateOverride>>;
  upsert(override: SandboxRateOverride): Promise<SandboxRateOverride>;
}

export interface SandboxRateFeedDependencies {
  walk: RandomWalk;
  overrides: SandboxRateOverrideStore;
  clock: Clock;
  tickMs: number;
  logger: Logger;
}

export class SandboxRateFeed implements RateFeed, SandboxRateControl {
  private lastTickAt: Date | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: SandboxRateFeedDependencies) {}

  /** Ticks once now, then every tickMs until stop(). */
  start(): void {
    if (this.timer) return;
    this.deps.logger.info('sandbox rate feed starting', {
      tickMs: this.deps.tickMs,
      midKes: this.deps.walk.midKes().toString(),
    });
    this.tick();
    this.timer = setInterval(() => this.tick(), this.deps.tickMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  tick(): void {
    this.deps.walk.step();
    this.lastTickAt = this.deps.clock.now();
  }

  async latest(partnerId: string): Promise<FeedRate | null> {
    return this.observed(await this.deps.overrides.find(partnerId));
  }

  /** Each partner's rate as `latest` gives it, their pins read in one statement. */
  async latestFor(partnerIds: readonly string[]): Promise<Map<string, FeedRate | null>> {
    const overrides = partnerIds.length > 0 ? await this.deps.overrides.findMany(partnerIds) : new Map();
    return new Map(partnerIds.map((partnerId) => [partnerId, this.observed(overrides.get(partnerId) ?? null)]));
  }

  /** A partner's rate now: its halted pin as frozen, its pin or the walk at the last tick, nothing before the first. */
  private observed(override: SandboxRateOverride | null): FeedRate | null {
    if (override?.haltedAt) return { bid: override.bid, ask: override.ask, observedAt: override.haltedAt };
    if (this.lastTickAt === null) return null;
    if (override) return { bid: override.bid, ask: override.ask, observedAt: this.lastTickAt };
    return { ...this.deps.walk.quote(), observedAt: this.lastTickAt };
  }

  /**
   * Pins a partner's rate. Pinning with `halted` stamps the pin as observed
   * now and freezes it there; pinning again (halted or not) replaces the pin.
   */
  async pin(pin: SandboxRatePin): Promise<FeedRate> {
    const haltedAt = pin.halted ? this.deps.clock.now() : null;
    await this.deps.overrides.upsert({ partnerId: pin.partnerId, bid: pin.bid, ask: pin.ask, haltedAt });
    this.deps.logger.info('sandbox rate pinned', {
      bid: pin.bid.toString(),
      ask: pin.ask.toString(),
      halted: pin.halted,
    });
    const rate = await this.latest(pin.partnerId);
    if (rate === null) throw new Error('sandbox rate feed: pinned before the first tick');
    return rate;
  }
}
