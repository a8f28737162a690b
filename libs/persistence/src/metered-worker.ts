/**
 * What every row-polling worker of this library shares around its WorkLoop: its
 * WorkerMetrics, the watch on its due rows while it runs, and start, kick, stop
 * and runOnce. A subclass writes the pass and says how its due rows are measured.
 */
import type { Logger } from '@platform/logger';
import { DueBacklog, WorkerMetrics } from '@platform/metrics';
import { PassOutcome, WorkLoop, WorkLoopOptions } from './work-loop';

export abstract class MeteredWorker {
  protected readonly loop: WorkLoop;
  protected readonly metrics: WorkerMetrics;
  private stopWatchingDue: (() => void) | null = null;

  /** `worker` labels the metrics; the loop calls `pass` only once started, after the subclass is built. */
  protected constructor(worker: string, logger: Logger, loopOptions: WorkLoopOptions) {
    this.metrics = new WorkerMetrics(worker);
    this.loop = new WorkLoop(() => this.pass(), logger, loopOptions);
  }

  /** One pass of the work, within the metrics' pass timing. */
  protected abstract pass(): Promise<PassOutcome>;

  /** How its due rows are measured while it runs; undefined when its work is not rows of its own database. */
  protected abstract dueProbe(): (() => Promise<DueBacklog>) | undefined;

  start(): void {
    if (!this.stopWatchingDue) {
      const probe = this.dueProbe();
      if (probe) this.stopWatchingDue = this.metrics.watchDue(probe);
    }
    this.loop.start();
  }

  /** Runs a pass soon (rows became due). */
  kick(): void {
    this.loop.kick();
  }

  /** Stops passing and waits for the pass in flight within the drain bound. */
  async stop(): Promise<void> {
    this.stopWatchingDue?.();
    this.stopWatchingDue = null;
    await this.loop.stop();
  }

  /** One pass now, gate included (tests and tools; the loop runs it on its own). */
  runOnce(): Promise<PassOutcome | 'gated'> {
    return this.loop.runOnce();
  }
}
