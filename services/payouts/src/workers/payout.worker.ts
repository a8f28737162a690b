/**
 * The `payout` worker: drives payout instructions through the bank on the
 * shared claim/lease/drain primitive (DurableScheduler, @platform/persistence).
 * Every replica claims a bounded batch of due instructions (FOR UPDATE SKIP
 * LOCKED, leased by moving next_attempt_at ahead, attempts counted) and runs
 * each one's step (PayoutSteps). It claims only while what the steps call
 * looks reachable (the ledger and trading channels and breakers, and the bank
 * when it can tell); a step that meets an unavailable dependency gives its
 * instruction back at once, uncounted, for a replica with a healthy path.
 * Alongside, once a minute, it logs instructions stuck without a bank answer.
 * Kicked when an instruction becomes due at once (an order's proceeds, a
 * confirmed transfer).
 */
import type { Logger } from '@platform/logger';
import { DataSource, DurableScheduler, ReadinessGate, SchedulerOptions, WorkLoop } from '@platform/persistence';
import type { InstructionRecord, PayoutInstructionsRepository } from '../persistence/payout-instructions.repository';
import type { PayoutSteps } from '../usecases/run-payouts/payout-steps';

/** How often each replica looks for stuck instructions. */
export const STUCK_CHECK_INTERVAL_MS = 60_000;

export class PayoutWorker {
  private readonly scheduler: DurableScheduler<InstructionRecord>;
  private readonly stuckCheck: WorkLoop;

  constructor(
    deps: {
      dataSource: DataSource;
      instructions: PayoutInstructionsRepository;
      steps: PayoutSteps;
      /** True while the ledger, trading and the bank look reachable. */
      ready: ReadinessGate;
      logger: Logger;
    },
    options: SchedulerOptions,
  ) {
    this.scheduler = new DurableScheduler(
      deps.dataSource,
      {
        name: 'payout',
        dueRows: deps.instructions.dueRows,
        claimDue: (manager, limit, leaseMs) => deps.instructions.claimDue(manager, limit, leaseMs),
        idOf: (instruction) => instruction.instructionId,
        run: (instruction, lease) => deps.steps.run(instruction, lease),
        ready: deps.ready,
      },
      deps.logger,
      options,
    );
    this.stuckCheck = new WorkLoop(
      async () => {
        await deps.steps.reportStuck();
        return 'idle';
      },
      deps.logger,
      { name: 'payout stuck check', intervalMs: STUCK_CHECK_INTERVAL_MS, drainMs: options.drainMs },
    );
  }

  start(): void {
    this.scheduler.start();
    this.stuckCheck.start();
  }

  /** Runs a pass soon (a new instruction is due at once). */
  kick(): void {
    this.scheduler.kick();
  }

  async stop(): Promise<void> {
    await Promise.all([this.scheduler.stop(), this.stuckCheck.stop()]);
  }

  /** One pass now, gate included (tests). */
  runOnce(): ReturnType<DurableScheduler<InstructionRecord>['runOnce']> {
    return this.scheduler.runOnce();
  }
}
