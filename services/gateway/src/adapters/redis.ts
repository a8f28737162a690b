/**
 * The gateway's Redis connection, configured to fail fast rather than queue:
 * with Redis away a command errors at once (no offline queue), a slow command
 * errors after REDIS_COMMAND_TIMEOUT_MS, and nothing is retried or re-sent
 * after a reconnect (a re-sent nonce claim would look like a replay, a re-sent
 * rate-limit entry would count twice). Callers turn those errors into 503s.
 */
import type { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';

export const REDIS_COMMAND_TIMEOUT_MS = 1_000;
const REDIS_CONNECT_TIMEOUT_MS = 5_000;
const REDIS_READY_TIMEOUT_MS = 30_000;
const REDIS_RECONNECT_DELAY_MS_MAX = 2_000;
const REDIS_RECONNECT_DELAY_MS_STEP = 100;

/** Connects, waiting a bounded time for Redis to come up; keeps reconnecting in the background afterwards. */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt: number) => Math.min(attempt * REDIS_RECONNECT_DELAY_MS_STEP, REDIS_RECONNECT_DELAY_MS_MAX),
  });
  redis.on('error', (error: Error) => logger.warn('redis connection error', { error: error.message }));
  redis.on('ready', () => logger.info('redis ready'));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.disconnect();
      reject(new Error(`redis not ready within ${REDIS_READY_TIMEOUT_MS} ms`));
    }, REDIS_READY_TIMEOUT_MS);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
    // A failed first attempt is retried by retryStrategy; 'ready' or the timer decides.
    redis.connect().catch(() => undefined);
  });
  return redis;
}

/**
 * Commands sent on one connection within one pass of the event loop's I/O phase
 * go out in one socket write: the first corks the connection, and an immediate
 * (run once the phase's other callbacks, the other requests that arrived with
 * it, have had their turn) uncorks it. Each write to Redis' socket is a system
 * call that also wakes Redis, the largest single item of the gateway's CPU
 * profile under load (one per request); with several requests per pass they
 * share one, and Redis reads them in one read and answers them in one write.
 * Nothing else changes: commands keep their order and ioredis matches replies
 * in order; a command waits at most for the rest of the pass; one written to a
 * connection that then fails is failed as any command in flight is (nothing is
 * re-sent, see connectRedis).
 */
/** Commands one write carries at most: bounds how long the first of a busy pass waits. */
export const COALESCED_COMMANDS_MAX = 64;

export class CoalescedWrites {
  private corked: Writable | null = null;
  private held = 0;

  /**
   * `redis.stream` is read at each hold and relies on ioredis 5 writing a command to it
   * synchronously in `sendCommand` (redis.spec.ts covers this class; recheck on an upgrade).
   */
  constructor(
    private readonly redis: Pick<Redis, 'stream'>,
    private readonly commandsPerWriteMax = COALESCED_COMMANDS_MAX,
  ) {}

  /**
   * Call before sending a command: holds this pass's writes back until the pass is over,
   * at most `commandsPerWriteMax` of them in one write (a busy pass sends several).
   */
  hold(): void {
    if (this.corked !== null && this.held < this.commandsPerWriteMax) {
      this.held += 1;
      return;
    }
    if (this.corked !== null) this.release();
    // A reconnecting connection's new stream is corked only from the next hold on; the
    // release uncorks the stream it corked, whatever ioredis holds by then.
    const stream = this.redis.stream as Writable | undefined;
    if (!stream?.writable) return;
    stream.cork();
    this.corked = stream;
    this.held = 1;
    setImmediate(this.release);
  }

  private readonly release = (): void => {
    const stream = this.corked;
    this.corked = null;
    this.held = 0;
    stream?.uncork();
  };
}

/** QUIT, bounded; a connection that does not close in time is dropped. */
export async function closeRedis(redis: Redis): Promise<void> {
  try {
    await Promise.race([redis.quit(), new Promise((resolve) => setTimeout(resolve, REDIS_COMMAND_TIMEOUT_MS).unref())]);
  } finally {
    redis.disconnect();
  }
}

/** The only eviction policy under which a claimed nonce cannot vanish before it is stale. */
export const REQUIRED_EVICTION_POLICY = 'noeviction';

/**
 * Refuses a Redis that may evict keys when full: an evicted nonce could be
 * replayed, an evicted window would forget a partner's requests. (Every
 * `volatile-*` policy evicts exactly the keys we keep, those with a TTL.)
 * Managed Redis often refuses CONFIG; then the check is logged as skipped and
 * docs/deploying.md is the safeguard.
 */
export async function checkNoEviction(redis: Pick<Redis, 'config'>, logger: Logger): Promise<void> {
  let reply: unknown;
  try {
    reply = await redis.config('GET', 'maxmemory-policy');
  } catch (error) {
    logger.warn('could not read the Redis eviction policy; it must be noeviction', { error: (error as Error).message });
    return;
  }
  const policy = Array.isArray(reply) ? reply[1] : undefined;
  if (policy === REQUIRED_EVICTION_POLICY) return;
  throw new Error(
    `Redis maxmemory-policy is "${String(policy)}"; nonces and rate-limit windows need "${REQUIRED_EVICTION_POLICY}"`,
  );
}
