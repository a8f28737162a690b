/**
 * Runs in every replica: gives newly committed deliveries their place in the
 * partners' events feed (EventFeedRepository.assignPositions, one serialised
 * step across replicas). Kicked when a batch of deliveries was created, so
 * events reach the feed within milliseconds; the poll catches what a kick
 * missed (a replica that died between the insert and its kick, rows from
 * before the upgrade). It runs on the shared WorkLoop (@platform/persistence):
 * one pass at a time, kicks during a pass coalesce into one more, and stop()
 * waits for the pass in flight within the drain bound. It needs only its own
 * database, so it has no readiness gate.
 *
 * A step locks the rows it positions, and the scheduler's claim skips locked
 * rows (SKIP LOCKED, never waits): both are kicked by the same accepted batch,
 * in this replica or another, so a claim that met the step finds a delivery
 * just created missing and, having claimed nothing, sleeps until the next kick
 * or poll (at a steady rate, one event's spacing later). So a pass that
 * positioned rows announces it once its steps committed (onPositioned: the
 * scheduler looks again), and no delivery waits on a lock the feed held.
 */
import type { Logger } from '@platform/logger';
import { WorkLoop } from '@platform/persistence';
import type { EventFeedRepository } from '../persistence/event-feed.repository';

export interface FeedPositionerOptions {
  pollIntervalMs: number;
  /** Rows positioned per step. */
  batchSize: number;
}

/** Steps per pass: a backlog is worked off over several passes, never in one unbounded loop. */
const STEPS_PER_PASS_MAX = 20;

export class FeedPositioner {
  private readonly loop: WorkLoop;

  constructor(
    private readonly feed: Pick<EventFeedRepository, 'assignPositions'>,
    private readonly logger: Logger,
    private readonly options: FeedPositionerOptions,
    /** Rows were positioned and their locks released: a claim that skipped them can take them now. */
    private readonly onPositioned: () => void = () => undefined,
  ) {
    this.loop = new WorkLoop(
      async () => {
        if ((await this.passOnce()) > 0) this.onPositioned();
        return 'idle';
      },
      logger,
      { name: 'feed positioner', intervalMs: options.pollIntervalMs },
    );
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass now, or right after the running one (kicks during a pass coalesce). */
  kick(): void {
    this.loop.kick();
  }

  /** Positions rows until a step finds fewer than a batch, at most STEPS_PER_PASS_MAX steps. Never throws. */
  async passOnce(): Promise<number> {
    let positioned = 0;
    try {
      for (let step = 0; step < STEPS_PER_PASS_MAX; step += 1) {
        const count = await this.feed.assignPositions(this.options.batchSize);
        positioned += count;
        if (count < this.options.batchSize) break;
      }
    } catch (error) {
      this.logger.warn('giving events their feed positions failed; will retry', { error: (error as Error).message });
    }
    return positioned;
  }
}
