/**
 * Runs the collections' time-driven steps (credit what was received, expire
 * what lapsed) in every replica, one after the other each pass, on the shared
 * WorkLoop (@platform/persistence): every interval, later (backing off) after
 * a pass in which a step met an unavailable dependency.
 * Steps are safe to run concurrently across replicas: each claims its rows with
 * FOR UPDATE SKIP LOCKED. A step whose dependency looks unreachable (its gate:
 * the ledger client's channel and breaker, no network round trip) is skipped,
 * leaving its rows to a replica that can reach it. A failed step is logged and
 * tried again next pass; stop() waits for the step in flight within the drain
 * bound, and a stopping credit step gives back the rows it has not started.
 * Each step reports as a worker (@platform/metrics WorkerMetrics): rows it
 * handled, failures, durations, and its due rows and their lag.
 */
import type { Logger } from '@platform/logger';
import { DueBacklog, WorkerMetrics } from '@platform/metrics';
import { PassOutcome, ReadinessGate, WorkLoop } from '@platform/persistence';

/** What one run of a step did: rows handled, and whether it stopped early on an unavailable dependency. */
export interface StepResult {
  handled: number;
  unavailable: boolean;
}

export interface Step {
  name: string;
  /** The metrics' `worker` label. */
  worker: string;
  /** One bounded batch; `stopping()` turns true when the replica stops (hand back what was not started). */
  run(stopping: () => boolean): Promise<StepResult>;
  measureDue: () => Promise<DueBacklog>;
  /** True while what the step needs looks reachable; skipped otherwise. Steps without one always run. */
  ready?: ReadinessGate;
}

export class StepScheduler {
  private readonly loop: WorkLoop;
  private readonly workers: Map<Step, WorkerMetrics>;
  private stopWatchingDue: Array<() => void> = [];
  private readonly gated = new Set<Step>();

  constructor(
    private readonly steps: readonly Step[],
    intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.workers = new Map(steps.map((step) => [step, new WorkerMetrics(step.worker)]));
    this.loop = new WorkLoop(() => this.pass(), logger, { name: 'collections steps', intervalMs });
  }

  start(): void {
    this.stopWatchingDue = this.steps.map((step) => this.metricsOf(step).watchDue(step.measureDue));
    this.loop.start();
  }

  async stop(): Promise<void> {
    for (const stopWatching of this.stopWatchingDue) stopWatching();
    this.stopWatchingDue = [];
    await this.loop.stop();
  }

  /** One pass now (tests). */
  runOnce(): ReturnType<WorkLoop['runOnce']> {
    return this.loop.runOnce();
  }

  private async pass(): Promise<PassOutcome> {
    let unavailable = false;
    for (const step of this.steps) {
      if (this.loop.stopping) break;
      if (!this.gateOpen(step)) continue;
      unavailable = (await this.runStep(step)).unavailable || unavailable;
    }
    return unavailable ? 'unavailable' : 'idle';
  }

  private async runStep(step: Step): Promise<StepResult> {
    const metrics = this.metricsOf(step);
    try {
      const result = await metrics.pass(() => step.run(() => this.loop.stopping));
      metrics.claimed(result.handled);
      return result;
    } catch (error) {
      this.logger.error('collections step failed; retried next tick', { step: step.name, error });
      return { handled: 0, unavailable: false };
    }
  }

  /** A closed gate skips the step this pass (logged when it closes and opens again). */
  private gateOpen(step: Step): boolean {
    const open = step.ready?.() ?? true;
    if (open === this.gated.has(step)) {
      if (open) this.gated.delete(step);
      else this.gated.add(step);
      this.logger.warn(open ? 'dependency reachable again; step runs' : 'dependency unreachable; step skipped', {
        step: step.name,
      });
    }
    return open;
  }

  private metricsOf(step: Step): WorkerMetrics {
    const metrics = this.workers.get(step);
    if (!metrics) throw new Error(`step ${step.name} is not this scheduler's`);
    return metrics;
  }
}
