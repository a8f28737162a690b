// Proves the positioner's bounds: a pass steps until a step positions less than
// a batch, never more than its step limit, and survives a failing step; kicks
// during a pass coalesce into one more pass.
import { createLogger } from '@platform/logger';
import { FeedPositioner } from './feed.positioner';

const logger = createLogger('spec', 'error');

describe('FeedPositioner', () => {
  it('steps until a step positions less than a batch', async () => {
    const answers = [10, 10, 3, 10];
    const positioner = new FeedPositioner({ assignPositions: async () => answers.shift() ?? 0 }, logger, {
      pollIntervalMs: 1_000,
      batchSize: 10,
    });
    expect(await positioner.passOnce()).toBe(23);
    expect(answers).toEqual([10]);
  });

  it('stops a pass at its step limit, so a backlog is worked off over several passes', async () => {
    let steps = 0;
    const positioner = new FeedPositioner({ assignPositions: async () => ((steps += 1), 5) }, logger, {
      pollIntervalMs: 1_000,
      batchSize: 5,
    });
    expect(await positioner.passOnce()).toBe(100);
    expect(steps).toBe(20);
  });

  it('answers a failing step with what it positioned so far, without throwing', async () => {
    const answers: Array<number | Error> = [4, new Error('database down')];
    const positioner = new FeedPositioner(
      {
        assignPositions: async () => {
          const answer = answers.shift();
          if (answer instanceof Error) throw answer;
          return answer ?? 0;
        },
      },
      logger,
      { pollIntervalMs: 1_000, batchSize: 4 },
    );
    expect(await positioner.passOnce()).toBe(4);
  });

  it('coalesces kicks during a pass into one more pass', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const positioner = new FeedPositioner(
      {
        assignPositions: () => {
          calls += 1;
          return calls === 1
            ? new Promise<number>((resolve) => {
                release = () => resolve(0);
              })
            : Promise.resolve(0);
        },
      },
      logger,
      { pollIntervalMs: 60_000, batchSize: 10 },
    );
    positioner.start();
    positioner.kick();
    // The kicked pass starts on the next timer turn; the kicks below arrive while it runs.
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    positioner.kick();
    positioner.kick();
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await positioner.stop();
    expect(calls).toBe(2);
  });
});

describe('FeedPositioner announcing positioned rows', () => {
  // The scheduler's claim skips rows a step holds locked; it is told once the step committed.
  async function announcementsAfterOnePass(positionedByStep: number[]): Promise<number> {
    let announced = 0;
    const answers = [...positionedByStep];
    const positioner = new FeedPositioner(
      { assignPositions: async () => answers.shift() ?? 0 },
      logger,
      { pollIntervalMs: 60_000, batchSize: 10 },
      () => (announced += 1),
    );
    positioner.start();
    positioner.kick();
    while (answers.length > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    await positioner.stop();
    return announced;
  }

  it('announces a pass that positioned rows, once, after its steps', async () => {
    expect(await announcementsAfterOnePass([10, 2])).toBe(1);
  });

  it('does not announce a pass that positioned nothing', async () => {
    expect(await announcementsAfterOnePass([0])).toBe(0);
  });
});
