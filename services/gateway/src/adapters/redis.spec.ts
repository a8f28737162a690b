// Proves the start-up check of the Redis eviction policy: noeviction passes,
// any other policy (volatile-* ones evict exactly our TTL'd nonces) refuses to
// start, and a Redis that refuses CONFIG is let through with a warning.
import { createLogger } from '@platform/logger';
import { checkNoEviction } from './redis';

const logger = createLogger('gateway-test');
logger.silent = true;

const redisAnswering = (policy: string) => ({ config: jest.fn(async () => ['maxmemory-policy', policy]) }) as never;

describe('checkNoEviction', () => {
  it('accepts noeviction', async () => {
    await expect(checkNoEviction(redisAnswering('noeviction'), logger)).resolves.toBeUndefined();
  });

  it.each(['allkeys-lru', 'volatile-lru', 'volatile-ttl', 'allkeys-random'])('refuses %s', async (policy) => {
    await expect(checkNoEviction(redisAnswering(policy), logger)).rejects.toThrow(
      `Redis maxmemory-policy is "${policy}"`,
    );
  });

  it('lets a Redis that refuses CONFIG through, with a warning', async () => {
    const warnings = jest.spyOn(logger, 'warn');
    const managed = {
      config: jest.fn(async () => {
        throw new Error("ERR unknown command 'CONFIG'");
      }),
    } as never;
    await expect(checkNoEviction(managed, logger)).resolves.toBeUndefined();
    expect(warnings).toHaveBeenCalledWith(expect.stringContaining('eviction policy'), expect.anything());
  });
});
