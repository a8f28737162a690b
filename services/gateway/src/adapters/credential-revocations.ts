/**
 * Revocations reach every gateway replica at once: the replica that revokes a
 * credential publishes its API key on a Redis channel, and every replica,
 * subscribed to it, drops its cached copy when the message arrives (a few
 * milliseconds), instead of serving it until its cache entry expires.
 *
 * Pub/sub delivers at most once: a replica whose subscription was down misses
 * what was published meanwhile. It then forgets its whole cache when the
 * subscription is back, so a missed message never keeps a revoked key alive
 * longer than the cache lifetime (CREDENTIAL_CACHE_TTL_MS), as without pub/sub.
 * A publish that fails (Redis away) is logged; the database already says
 * "revoked", and other replicas learn it within the cache lifetime.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import { connectRedis, closeRedis } from './redis';

export const CREDENTIAL_REVOKED_CHANNEL = 'gateway:credential-revoked';
/** An API key is far shorter; anything longer on the channel is not one of ours. */
const MESSAGE_CHARACTERS_MAX = 200;

/** What a replica's credential cache offers the subscription. */
export interface ForgettingCache {
  forget(apiKey: string): void;
  forgetAll(): void;
}

export class CredentialRevocations {
  private constructor(
    private readonly publisher: Pick<Redis, 'publish'>,
    private readonly subscriber: Redis,
    private readonly logger: Logger,
  ) {}

  /**
   * Subscribes on a connection of its own (a subscribed connection can do nothing
   * else) and resolves once subscribed; `publisher` is the replica's usual connection.
   */
  static async start(
    url: string,
    publisher: Pick<Redis, 'publish'>,
    cache: ForgettingCache,
    logger: Logger,
  ): Promise<CredentialRevocations> {
    const subscriber = await connectRedis(url, logger);
    let subscribed = false;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== CREDENTIAL_REVOKED_CHANNEL || message.length === 0 || message.length > MESSAGE_CHARACTERS_MAX)
        return;
      cache.forget(message);
    });
    subscriber.on('close', () => {
      if (subscribed) logger.warn('credential revocation subscription lost; the cache is forgotten when it is back');
    });
    // ioredis subscribes again on every reconnection, then says 'ready'.
    subscriber.on('ready', () => {
      if (!subscribed) return;
      cache.forgetAll();
      logger.info('credential revocation subscription back; cached credentials forgotten');
    });
    await subscriber.subscribe(CREDENTIAL_REVOKED_CHANNEL);
    subscribed = true;
    return new CredentialRevocations(publisher, subscriber, logger);
  }

  /** Tells every replica (this one included) to forget `apiKey`. Never throws. */
  async publish(apiKey: string): Promise<void> {
    try {
      await this.publisher.publish(CREDENTIAL_REVOKED_CHANNEL, apiKey);
    } catch (error) {
      this.logger.warn('could not announce a revocation; other replicas learn it within the cache lifetime', {
        error: (error as Error).message,
      });
    }
  }

  async close(): Promise<void> {
    await closeRedis(this.subscriber);
  }
}
