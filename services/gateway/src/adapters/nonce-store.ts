import type { Redis } from 'ioredis';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { NONCE_RETENTION_MS } from '../domain/request-signature';
import type { NonceStore } from '../http/dependencies';

/**
 * Nonces in Redis, single-use per API key: `SET nonce:<apiKey>:<nonce> 1 NX PX 600000`.
 * Shared by every replica, so a replay is caught whichever replica it reaches.
 */
export class RedisNonceStore implements NonceStore {
  constructor(private readonly redis: Redis, private readonly logger: Logger) {}

  async claim(apiKey: string, nonce: string): Promise<boolean> {
    try {
      const reply = await this.redis.set(`nonce:${apiKey}:${nonce}`, '1', 'PX', NONCE_RETENTION_MS, 'NX');
      return reply === 'OK';
    } catch (error) {
      this.logger.warn('nonce store unavailable; refusing the request', { error: (error as Error).message });
      throw new AppError('SERVICE_UNAVAILABLE');
    }
  }
}
