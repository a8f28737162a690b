// Proves the start-up check of the Redis eviction policy: noeviction passes,
// any other policy (volatile-* ones evict exactly our TTL'd nonces) refuses to
// start, and a Redis that refuses CONFIG is let through with a warning; and that
// coalesced writes cork a connection once per pass, up to a bound of commands,
// always uncork the stream they corked (also once ioredis has replaced it), and
// leave a stream that cannot be written alone.
import { createLogger } from '@platform/logger';
import { checkNoEviction, CoalescedWrites } from './redis';

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

describe('CoalescedWrites', () => {
  const nextPass = () => new Promise((resolve) => setImmediate(resolve));
  const fakeStream = () => ({ writable: true, cork: jest.fn(), uncork: jest.fn() });

  it('corks once for the commands of one pass and uncorks when the pass is over', async () => {
    const stream = fakeStream();
    const writes = new CoalescedWrites({ stream } as never);
    for (let i = 0; i < 5; i += 1) writes.hold();
    expect(stream.cork).toHaveBeenCalledTimes(1);
    expect(stream.uncork).not.toHaveBeenCalled();
    await nextPass();
    expect(stream.uncork).toHaveBeenCalledTimes(1);
    writes.hold();
    expect(stream.cork).toHaveBeenCalledTimes(2);
    await nextPass();
    expect(stream.uncork).toHaveBeenCalledTimes(2);
  });

  it('sends a write every so many commands in a busy pass', async () => {
    const stream = fakeStream();
    const writes = new CoalescedWrites({ stream } as never, 3);
    for (let i = 0; i < 7; i += 1) writes.hold();
    expect(stream.cork).toHaveBeenCalledTimes(3);
    expect(stream.uncork).toHaveBeenCalledTimes(2);
    await nextPass();
    expect(stream.uncork).toHaveBeenCalledTimes(3);
  });

  it('uncorks the stream it corked when ioredis replaced it meanwhile, and never corks the new one that pass', async () => {
    const first = fakeStream();
    const redis = { stream: first };
    const writes = new CoalescedWrites(redis as never);
    writes.hold();
    const second = fakeStream();
    redis.stream = second;
    writes.hold();
    await nextPass();
    expect(first.uncork).toHaveBeenCalledTimes(1);
    expect(second.cork).not.toHaveBeenCalled();
    expect(second.uncork).not.toHaveBeenCalled();
    writes.hold();
    expect(second.cork).toHaveBeenCalledTimes(1);
    await nextPass();
    expect(second.uncork).toHaveBeenCalledTimes(1);
  });

  it('leaves a stream that cannot be written (closed, destroyed) or none at all alone', async () => {
    const closed = { ...fakeStream(), writable: false };
    new CoalescedWrites({ stream: closed } as never).hold();
    new CoalescedWrites({ stream: undefined } as never).hold();
    await nextPass();
    expect(closed.cork).not.toHaveBeenCalled();
    expect(closed.uncork).not.toHaveBeenCalled();
  });
});
