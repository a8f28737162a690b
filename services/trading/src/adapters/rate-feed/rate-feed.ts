/**
 * Where quote rates come from. A feed answers the latest observation it holds
 * for a partner, or null when it has none it can vouch for; whether an
 * observation is fresh enough to quote from is decided by the caller
 * (domain/rate-freshness.ts), not by the feed.
 */
import type { Big } from '@platform/money';
import type { SandboxRatePin } from '../../domain/sandbox-rate';

export interface FeedRate {
  /** KES per USDT the market pays (sell side); any number of decimals. */
  bid: Big;
  /** KES per USDT the market asks (buy side); >= bid. */
  ask: Big;
  observedAt: Date;
}

export interface RateFeed {
  latest(partnerId: string): Promise<FeedRate | null>;
  /**
   * What `latest` answers for each of `partnerIds`, asked at once (a batch of quotes): one
   * read for them all where the feed reads per partner, not one each. Every id is a key.
   */
  latestFor(partnerIds: readonly string[]): Promise<Map<string, FeedRate | null>>;
}

/** Sandbox only: pins one partner's rate (and optionally halts its ticking). */
export interface SandboxRateControl {
  pin(pin: SandboxRatePin): Promise<FeedRate>;
}
