/**
 * Runs in every ledger replica: every `intervalMs` it expires overdue holds in
 * bounded batches. The hold row is the timer, so nothing is lost when a replica
 * stops; another (or the next start) picks the rows up. Posts also check expiry
 * themselves, so a late sweep never lets an expired hold be posted.
 */
import type { Logger } from '@platform/logger';
import type { ExpireHoldsUseCase } from '../usecases/expire-holds/expire-holds.usecase';

export interface HoldExpirySweeperOptions {
  intervalMs: number;
  batchSize: number;
}

/** Batches per tick at most, so one tick cannot run unbounded behind a backlog. */
const BATCHES_PER_TICK_MAX = 20;

export class HoldExpirySweeper {
  private timer: NodeJS.Timeout | null = null;
  private tick: Promise<void> = Promise.resolve();
  private running = false;

  constructor(private readonly expireHolds: ExpireHoldsUseCase, private readonly logger: Logger, private readonly options: HoldExpirySweeperOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.tick;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.tick = this.sweep().finally(() => this.schedule());
    }, this.options.intervalMs);
  }

  private async sweep(): Promise<void> {
    try {
      for (let batch = 0; batch < BATCHES_PER_TICK_MAX && this.running; batch += 1) {
        const expired = await this.expireHolds.execute(this.options.batchSize);
        if (expired > 0) this.logger.info('holds expired', { count: expired });
        if (expired < this.options.batchSize) return;
      }
    } catch (error) {
      this.logger.error('hold expiry sweep failed; retrying next tick', { error });
    }
  }
}
