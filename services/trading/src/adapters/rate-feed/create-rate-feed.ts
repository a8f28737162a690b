/** Chooses the rate feed from configuration: sandbox (default) or http (required in production). */
import type { Logger } from '@platform/logger';
import { Big } from '@platform/money';
import type { Clock } from '../../domain/clock';
import { HttpRateFeed } from './http-rate-feed';
import { RandomWalk } from './random-walk';
import type { RateFeed, SandboxRateControl } from './rate-feed';
import { SandboxRateFeed, SandboxRateOverrideStore } from './sandbox-rate-feed';

export type RateFeedConfig =
  | { kind: 'sandbox'; midKes: string; spreadBps: number; tickMs: number }
  | { kind: 'http'; url: string; timeoutMs: number; reuseMs: number };

export interface RateFeedHandle {
  feed: RateFeed;
  /** Present only with the sandbox feed: the sandbox helper pins through it. */
  sandboxControl: SandboxRateControl | null;
  start(): void;
  stop(): void;
}

export function createRateFeed(
  config: RateFeedConfig,
  deps: { overrides: SandboxRateOverrideStore; clock: Clock; logger: Logger },
): RateFeedHandle {
  const logger = deps.logger.child({ context: 'RateFeed' });
  if (config.kind === 'http') {
    const feed = new HttpRateFeed({ url: config.url, timeoutMs: config.timeoutMs, reuseMs: config.reuseMs, logger });
    return { feed, sandboxControl: null, start: () => undefined, stop: () => feed.shutdown() };
  }
  const walk = new RandomWalk({ midKes: new Big(config.midKes), spreadBps: config.spreadBps });
  const feed = new SandboxRateFeed({
    walk,
    overrides: deps.overrides,
    clock: deps.clock,
    tickMs: config.tickMs,
    logger,
  });
  return { feed, sandboxControl: feed, start: () => feed.start(), stop: () => feed.stop() };
}
