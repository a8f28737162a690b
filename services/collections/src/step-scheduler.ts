/**
 * Runs the collections' time-driven steps (credit what was received, expire
 * what lapsed) every interval in every replica. Steps are safe to run
 * concurrently: each claims its rows with FOR UPDATE SKIP LOCKED. A failed step
 * is logged and tried again at the next tick; stop() waits for the step in
 * flight.
 */
import type { Logger } from '@platform/logger';

export interface Step {
  name: string;
  run(): Promise<unknown>;
}

export class StepScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly steps: readonly Step[], private readonly intervalMs: number, private readonly logger: Logger) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = null;
        this.schedule();
      });
    }, this.intervalMs);
  }

  private async tick(): Promise<void> {
    for (const step of this.steps) {
      if (this.stopped) return;
      try {
        await step.run();
      } catch (error) {
        this.logger.error('collections step failed; retried next tick', { step: step.name, error });
      }
    }
  }
}
