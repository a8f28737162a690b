/**
 * A saga: steps run in order, each recording how to undo it; when a step
 * fails, what was recorded is undone newest first and the step's own error is
 * rethrown. In the style of Temporal's saga sample (a list of compensations
 * grown as the steps run), without a workflow engine: whatever cannot be
 * undone at once is left to the caller's recovery (payouts' scheduler, once a
 * create's lease passes), so every compensation must be safe to run again.
 *
 * A step's compensation is recorded BEFORE the step runs: a call that timed
 * out may still have taken effect (a hold placed, a cap reserved), and undoing
 * what was never done must therefore be harmless.
 *
 * Unwinding stops at the first compensation that fails. The older ones stay
 * recorded for whoever finishes the job; the oldest is commonly what makes the
 * unfinished work findable (a claimed row), and removing it while a newer
 * step is still in effect would lose track of that step. The failure is
 * reported to `onCompensationFailed`; the caller still sees the step's error.
 *
 * Usage (each step a closure over the use case's state):
 *   const saga = new Saga((failure) => logger.warn('not yet undone', { step: failure.step, error: failure.error }));
 *   await saga.run([
 *     { name: 'claim', compensate: () => deleteClaim(id) },
 *     { name: 'reserve cap', run: () => reserve(id), compensate: () => release(id) },
 *     { name: 'send code', run: () => sendCode(id) },
 *   ]);
 */

export interface SagaStep {
  /** What the step does, in a few words: it names the step in a compensation failure. */
  readonly name: string;
  /** Absent for a step that only records how to undo what was done before the saga began (a claimed row). */
  readonly run?: () => Promise<void>;
  /** Given the failure that started the unwinding, so a nested saga can report it too. */
  readonly compensate?: (cause: unknown) => Promise<void>;
}

export interface CompensationFailure {
  /** The step whose compensation failed. */
  step: string;
  error: unknown;
  /** The failure that started the unwinding. */
  cause: unknown;
}

export class Saga {
  private readonly compensations: Array<{ step: string; compensate: (cause: unknown) => Promise<void> }> = [];

  /** `onCompensationFailed` reports (logs); it must not throw, or its error would replace the step's. */
  constructor(private readonly onCompensationFailed: (failure: CompensationFailure) => void) {}

  /**
   * Runs the steps in order. On the first failure nothing after it runs: what
   * was recorded, by this call and by earlier calls on the same saga, is
   * undone newest first and the step's error is rethrown.
   */
  async run(steps: readonly SagaStep[]): Promise<void> {
    for (const step of steps) {
      if (step.compensate) this.compensations.push({ step: step.name, compensate: step.compensate });
      if (!step.run) continue;
      try {
        await step.run();
      } catch (error) {
        await this.compensate(error);
        throw error;
      }
    }
  }

  /**
   * Undoes what is recorded, newest first; true when all of it was undone.
   * Stops at the first compensation that fails, reports it and keeps it and
   * the older ones recorded.
   */
  async compensate(cause: unknown): Promise<boolean> {
    while (this.compensations.length > 0) {
      const { step, compensate } = this.compensations[this.compensations.length - 1];
      try {
        await compensate(cause);
      } catch (error) {
        this.onCompensationFailed({ step, error, cause });
        return false;
      }
      this.compensations.pop();
    }
    return true;
  }
}

export { OrphanedHoldsWalk } from './orphaned-holds';
export type { HoldOwners, OrphanedHoldsDependencies, OwnedHold, OwnedHoldsLedger } from './orphaned-holds';
export { ServiceAccounts } from './service-accounts';
export type { ServiceAccountCode, ServiceAccountCurrency, ServiceAccountsLedger } from './service-accounts';
