// Proves /v1/health's upstream verdict: ok only when every upstream answers
// SERVING and no breaker is open; answers are reused for 1 s and shared by
// concurrent callers; a probe that throws counts as unhealthy.
import { createLogger } from '@platform/logger';
import { CachedUpstreamHealth, UPSTREAM_HEALTH_CACHE_MS } from './upstream-health';

const logger = createLogger('gateway-test');
logger.silent = true;

function setup(options: { serving?: boolean; breakerOpen?: boolean; throws?: boolean } = {}) {
  let nowMs = 0;
  const state = { serving: options.serving ?? true, breakerOpen: options.breakerOpen ?? false, probes: 0 };
  const serving = async () => {
    state.probes += 1;
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
  return {
    health,
    state,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

describe('CachedUpstreamHealth', () => {
  it('is ok when every upstream serves', async () => {
    expect(await setup().health.status()).toBe('ok');
  });

  it('is degraded when a probe fails, throws, or a breaker is open', async () => {
    expect(await setup({ serving: false }).health.status()).toBe('degraded');
    expect(await setup({ throws: true }).health.status()).toBe('degraded');
    expect(await setup({ breakerOpen: true }).health.status()).toBe('degraded');
  });

  it('reuses the answer for 1 s and shares it between concurrent callers', async () => {
    const { health, state, advance } = setup();
    await Promise.all([health.status(), health.status(), health.status()]);
    expect(state.probes).toBe(2);
    advance(UPSTREAM_HEALTH_CACHE_MS - 1);
    await health.status();
    expect(state.probes).toBe(2);
    state.serving = false;
    advance(1);
    expect(await health.status()).toBe('degraded');
    expect(state.probes).toBe(4);
  });
});
