// Proves the sandbox feed's observation times: the walk and pinned rates are
// observed at the last tick, a halted pin stays at the moment it was halted
// (so it goes stale), pins are read from the shared store on every call, and
// nothing is observed before the first tick; many partners at once (a batch of
// quotes) read their pins in one call and get what each would alone.
import { createLogger } from '@platform/logger';
import { Big } from '@platform/money';
import type { Clock } from '../../domain/clock';
import { RandomWalk } from './random-walk';
import { SandboxRateFeed, SandboxRateOverride, SandboxRateOverrideStore } from './sandbox-rate-feed';

function silentLogger() {
  const logger = createLogger('test');
  logger.silent = true;
  return logger;
}

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

class MemoryStore implements SandboxRateOverrideStore {
  readonly rows = new Map<string, SandboxRateOverride>();
  readonly manyReads: string[][] = [];
  async find(id: string) {
    return this.rows.get(id) ?? null;
  }
  async findMany(ids: readonly string[]) {
    this.manyReads.push([...ids]);
    return new Map(ids.flatMap((id) => (this.rows.has(id) ? [[id, this.rows.get(id)!] as const] : [])));
  }
  async upsert(override: SandboxRateOverride) {
    this.rows.set(override.partnerId, override);
    return override;
  }
}

function setup() {
  let nowMs = Date.parse('2024-11-21T08:00:00.000Z');
  const clock: Clock = { now: () => new Date(nowMs) };
  const store = new MemoryStore();
  const feed = new SandboxRateFeed({
    walk: new RandomWalk({ midKes: new Big('129.50'), spreadBps: 50, random: () => 0 }),
    overrides: store,
    clock,
    tickMs: 250,
    logger: silentLogger(),
  });
  return { feed, store, advance: (ms: number) => (nowMs += ms) };
}

describe('SandboxRateFeed', () => {
  it('has no rate before its first tick', async () => {
    expect(await setup().feed.latest(partnerId)).toBeNull();
  });

  it('observes the walk at each tick', async () => {
    const { feed, advance } = setup();
    feed.tick();
    advance(100);
    const rate = await feed.latest(partnerId);
    expect(rate?.observedAt.toISOString()).toBe('2024-11-21T08:00:00.000Z');
    expect(rate?.bid.toString()).toBe('129.17625');
    feed.tick();
    expect((await feed.latest(partnerId))?.observedAt.toISOString()).toBe('2024-11-21T08:00:00.100Z');
  });

  it('keeps a pinned rate ticking', async () => {
    const { feed, advance } = setup();
    feed.tick();
    const pinned = await feed.pin({ partnerId, bid: new Big('128.1234'), ask: new Big('130.9876'), halted: false });
    expect([pinned.bid.toString(), pinned.ask.toString()]).toEqual(['128.1234', '130.9876']);
    advance(250);
    feed.tick();
    const rate = await feed.latest(partnerId);
    expect(rate?.ask.toString()).toBe('130.9876');
    expect(rate?.observedAt.toISOString()).toBe('2024-11-21T08:00:00.250Z');
  });

  it('freezes a halted pin at the moment of halting, whatever the ticks', async () => {
    const { feed, advance } = setup();
    feed.tick();
    advance(1_000);
    await feed.pin({ partnerId, bid: new Big('128'), ask: new Big('130'), halted: true });
    advance(5_000);
    feed.tick();
    expect((await feed.latest(partnerId))?.observedAt.toISOString()).toBe('2024-11-21T08:00:01.000Z');
    // Pinning again without halting resumes the ticks.
    await feed.pin({ partnerId, bid: new Big('128'), ask: new Big('130'), halted: false });
    expect((await feed.latest(partnerId))?.observedAt.toISOString()).toBe('2024-11-21T08:00:06.000Z');
  });

  it('reads pins from the shared store, so a pin made by another replica applies', async () => {
    const { feed, store } = setup();
    feed.tick();
    await store.upsert({ partnerId, bid: new Big('100'), ask: new Big('101'), haltedAt: null });
    expect((await feed.latest(partnerId))?.bid.toString()).toBe('100');
    expect((await feed.latest('00000000-0000-4000-8000-000000000000'))?.bid.toString()).toBe('129.17625');
  });

  it('answers many partners at once as each alone, their pins read in one call', async () => {
    const { feed, store, advance } = setup();
    const walking = '00000000-0000-4000-8000-000000000000';
    const halted = '00000000-0000-4000-8000-000000000001';
    expect(await feed.latestFor([partnerId, walking])).toEqual(
      new Map([
        [partnerId, null],
        [walking, null],
      ]),
    );
    feed.tick();
    await feed.pin({ partnerId, bid: new Big('100'), ask: new Big('101'), halted: false });
    await feed.pin({ partnerId: halted, bid: new Big('90'), ask: new Big('91'), halted: true });
    advance(250);
    feed.tick();
    store.manyReads.length = 0;
    const rates = await feed.latestFor([partnerId, walking, halted]);
    expect(store.manyReads).toEqual([[partnerId, walking, halted]]);
    for (const id of [partnerId, walking, halted]) expect(rates.get(id)).toEqual(await feed.latest(id));
    expect(rates.get(halted)?.observedAt.toISOString()).toBe('2024-11-21T08:00:00.000Z');
    expect(rates.get(partnerId)?.observedAt.toISOString()).toBe('2024-11-21T08:00:00.250Z');
  });

  it('ticks on a timer between start and stop', async () => {
    const { feed } = setup();
    jest.useFakeTimers();
    try {
      const tick = jest.spyOn(feed, 'tick');
      feed.start();
      jest.advanceTimersByTime(1_000);
      expect(tick).toHaveBeenCalledTimes(5); // once at start, then every 250 ms
      feed.stop();
      jest.advanceTimersByTime(1_000);
      expect(tick).toHaveBeenCalledTimes(5);
    } finally {
      jest.useRealTimers();
    }
  });
});
