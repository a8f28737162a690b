// Proves /v1/health's upstream verdict: ok only when every upstream answers
// SERVING and no breaker is open; a verdict is reused for 1 s and probes are
// shared by concurrent callers; past 1 s a request answers with the last
// verdict and the fresh probes start after it (it never waits for them, one set
// of probes for all such requests), past 3 s it waits;
// a breaker that opens degrades the answer at once; a probe that throws counts
// as unhealthy.
import { createLogger } from '@platform/logger';
import { CachedUpstreamHealth, UPSTREAM_HEALTH_CACHE_MS, UPSTREAM_HEALTH_STALE_MS_MAX } from './upstream-health';

const logger = createLogger('gateway-test');
logger.silent = true;

function setup(options: { serving?: boolean; breakerOpen?: boolean; throws?: boolean } = {}) {
  let nowMs = 0;
  const state = {
    serving: options.serving ?? true,
    breakerOpen: options.breakerOpen ?? false,
    probes: 0,
    /** While set, probes do not answer until it is called. */
    held: null as Promise<void> | null,
  };
  const serving = async () => {
    state.probes += 1;
    if (state.held) await state.held;
    if (options.throws) throw new Error('boom');
    return state.serving;
  };
  const health = new CachedUpstreamHealth(
    [
      {
        name: 'trading',
        client: {
          breaker: {
            get opened() {
              return state.breakerOpen;
            },
          },
          serving,
        },
      },
      { name: 'ledger', client: { breaker: { opened: false }, serving } },
    ],
    logger,
    () => nowMs,
  );
  /** Holds the probes; the function returned lets them answer. */
  const hold = () => {
    let release = () => {};
    state.held = new Promise<void>((resolve) => (release = resolve));
    return () => {
      state.held = null;
      release();
    };
  };
  return {
    health,
    state,
    hold,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CachedUpstreamHealth', () => {
  it('is ok when every upstream serves', async () => {
    expect(await setup().health.status()).toBe('ok');
  });

  it('is degraded when a probe fails, throws, or a breaker is open', async () => {
    expect(await setup({ serving: false }).health.status()).toBe('degraded');
    expect(await setup({ throws: true }).health.status()).toBe('degraded');
    expect(await setup({ breakerOpen: true }).health.status()).toBe('degraded');
  });

  it('reuses the verdict for 1 s and shares the probes between concurrent callers', async () => {
    const { health, state, advance } = setup();
    await Promise.all([health.status(), health.status(), health.status()]);
    expect(state.probes).toBe(2);
    advance(UPSTREAM_HEALTH_CACHE_MS - 1);
    expect(await health.status()).toBe('ok');
    expect(state.probes).toBe(2);
  });

  it('past 1 s answers the last verdict at once while fresh probes run, and the next request has theirs', async () => {
    const { health, state, hold, advance } = setup();
    await health.status();
    state.serving = false;
    advance(UPSTREAM_HEALTH_CACHE_MS);
    const release = hold();
    expect(await health.status()).toBe('ok');
    expect(await health.status()).toBe('ok');
    expect(state.probes).toBe(2);
    await settle();
    expect(state.probes).toBe(4);
    release();
    await settle();
    expect(await health.status()).toBe('degraded');
    expect(state.probes).toBe(4);
  });

  it('past 3 s waits for fresh probes rather than answer an old verdict', async () => {
    const { health, state, advance } = setup();
    await health.status();
    state.serving = false;
    advance(UPSTREAM_HEALTH_STALE_MS_MAX);
    expect(await health.status()).toBe('degraded');
    expect(state.probes).toBe(4);
  });

  it('degrades at once when a breaker opens, without waiting for the verdict to age', async () => {
    const { health, state } = setup();
    expect(await health.status()).toBe('ok');
    state.breakerOpen = true;
    expect(await health.status()).toBe('degraded');
    expect(state.probes).toBe(2);
  });
});
