/**
 * Runs the collections' time-driven steps (credit what was received, expire
 * what lapsed) every interval in every replica. Steps are safe to run
 * concurrently: each claims its rows with FOR UPDATE SKIP LOCKED. A failed step
 * is logged and tried again at the next tick; stop() waits for the step in
 * flight. Each step reports as a worker (@platform/metrics WorkerMetrics): rows
 * it handled, failures, durations, and its due rows and their lag.
 */
import type { Logger } from '@platform/logger';
import { DueBacklog, WorkerMetrics } from '@platform/metrics';

export interface Step {
  name: string;
  /** The metrics' `worker` label. */
  worker: string;
  /** How many rows it handled (a number), or anything when it does not tell. */
  run(): Promise<unknown>;
  measureDue: () => Promise<DueBacklog>;
}

export class StepScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly workers: Map<Step, WorkerMetrics>;
  private stopWatchingDue: Array<() => void> = [];

  constructor(
    private readonly steps: readonly Step[],
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.workers = new Map(steps.map((step) => [step, new WorkerMetrics(step.worker)]));
  }

  start(): void {
    this.stopWatchingDue = this.steps.map((step) => this.metricsOf(step).watchDue(step.measureDue));
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const stopWatching of this.stopWatchingDue) stopWatching();
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
      const metrics = this.metricsOf(step);
      try {
        const handled = await metrics.pass(() => step.run());
        if (typeof handled === 'number') metrics.claimed(handled);
      } catch (error) {
        this.logger.error('collections step failed; retried next tick', { step: step.name, error });
      }
    }
  }

  private metricsOf(step: Step): WorkerMetrics {
    const metrics = this.workers.get(step);
    if (!metrics) throw new Error(`step ${step.name} is not this scheduler's`);
    return metrics;
  }
}
