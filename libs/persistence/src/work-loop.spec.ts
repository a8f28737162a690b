// Proves the shared loop's timing on fake timers: passes follow the interval,
// a full batch ("more") runs the next pass at once, passes that met an
// unavailable dependency back off (doubling, bounded) and a kick does not cut
// that backoff short, a closed gate is asked again each interval without
// backing off, and a pass that throws is logged and retried next interval.
import type { Logger } from '@platform/logger';
import { PassOutcome, WorkLoop } from './work-loop';

const logger = { info() {}, warn() {}, error() {}, child: () => logger } as unknown as Logger;
const INTERVAL_MS = 100;

/** Runs a loop whose passes answer `outcomes` in turn (then 'idle'), recording when each ran. */
function loopAnswering(outcomes: Array<PassOutcome | Error>, ready?: () => boolean) {
  const ranAtMs: number[] = [];
  const startedAtMs = Date.now();
  const loop = new WorkLoop(
    async () => {
      ranAtMs.push(Date.now() - startedAtMs);
      const outcome = outcomes.shift() ?? 'idle';
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    logger,
    { name: 'spec', intervalMs: INTERVAL_MS, backoffMsMax: 400, ready },
  );
  return { loop, ranAtMs };
}

describe('WorkLoop', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs every interval, at once after a full batch, and retries a failed pass next interval', async () => {
    const { loop, ranAtMs } = loopAnswering(['idle', 'more', new Error('bug'), 'idle']);
    loop.start();
    await jest.advanceTimersByTimeAsync(350);
    await loop.stop();
    // "At once" is the next timer turn (a timer of 0 fires after 1 ms).
    expect(ranAtMs).toEqual([100, 200, 201, 301]);
  });

  it('backs off after unavailable passes, doubling up to the bound, and ignores kicks meanwhile', async () => {
    const { loop, ranAtMs } = loopAnswering(['unavailable', 'unavailable', 'unavailable', 'unavailable', 'idle']);
    loop.start();
    await jest.advanceTimersByTimeAsync(150);
    loop.kick();
    await jest.advanceTimersByTimeAsync(1_500);
    await loop.stop();
    // 100 first; then waits of 100, 200, 400, 400 (bounded); then the interval again.
    expect(ranAtMs.slice(0, 6)).toEqual([100, 200, 400, 800, 1_200, 1_300]);
  });

  it('asks a closed gate again each interval without backing off, and runs once it opens', async () => {
    let open = false;
    const { loop, ranAtMs } = loopAnswering([], () => open);
    loop.start();
    await jest.advanceTimersByTimeAsync(450);
    expect(ranAtMs).toEqual([]);
    open = true;
    await jest.advanceTimersByTimeAsync(100);
    await loop.stop();
    expect(ranAtMs).toEqual([500]);
  });

  it('runs a pass at once when kicked while idle, and right after the running pass when kicked during it', async () => {
    const ranAtMs: number[] = [];
    let finishPass: () => void = () => undefined;
    const loop = new WorkLoop(
      async () => {
        ranAtMs.push(Date.now());
        if (ranAtMs.length === 1) await new Promise<void>((resolve) => (finishPass = resolve));
        return 'idle';
      },
      logger,
      { name: 'spec', intervalMs: 10_000 },
    );
    const startedAtMs = Date.now();
    loop.start();
    loop.kick();
    await jest.advanceTimersByTimeAsync(1);
    loop.kick();
    finishPass();
    await jest.advanceTimersByTimeAsync(5);
    await loop.stop();
    expect(ranAtMs.map((at) => at - startedAtMs)).toEqual([0, 1]);
  });
});
