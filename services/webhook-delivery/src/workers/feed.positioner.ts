/**
 * Runs in every replica: gives newly committed deliveries their place in the
 * partners' events feed (EventFeedRepository.assignPositions, one serialised
 * step across replicas). Kicked when a batch of deliveries was created, so
 * events reach the feed within milliseconds; the poll catches what a kick
 * missed (a replica that died between the insert and its kick, rows from
 * before the upgrade).
 */
import type { Logger } from '@platform/logger';
import type { EventFeedRepository } from '../persistence/event-feed.repository';

export interface FeedPositionerOptions {
  pollIntervalMs: number;
  /** Rows positioned per step. */
  batchSize: number;
}

/** Steps per pass: a backlog is worked off over several passes, never in one unbounded loop. */
const STEPS_PER_PASS_MAX = 20;

export class FeedPositioner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private kickedWhileRunning = false;

  constructor(
    private readonly feed: Pick<EventFeedRepository, 'assignPositions'>,
    private readonly logger: Logger,
    private readonly options: FeedPositionerOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.kick(), this.options.pollIntervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.kickedWhileRunning = false;
    await this.running;
  }

  /** One pass now, or right after the running one (kicks during a pass coalesce). */
  kick(): void {
    if (this.running) {
      this.kickedWhileRunning = true;
      return;
    }
    this.running = this.passOnce().finally(() => {
      this.running = null;
      if (this.kickedWhileRunning && this.timer) {
        this.kickedWhileRunning = false;
        this.kick();
      }
    });
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
