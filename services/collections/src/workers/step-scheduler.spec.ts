// Proves the collections' step scheduler gates each step on its own dependency:
// while the ledger looks unreachable the credit step is skipped (it claims no
// collection) and the expiry step, which needs only the database, still runs;
// a credit step that met an unavailable ledger makes the pass back off without
// counting a failure; and a stopping scheduler tells the step in flight to stop.
import type { Logger } from '@platform/logger';
import { metricsRegistry } from '@platform/metrics';
import { Step, StepScheduler } from './step-scheduler';

const logger = { info() {}, warn() {}, error() {}, child: () => logger } as unknown as Logger;
const noBacklog = async () => ({ dueRows: 0, oldestDueAgeMs: 0 });

async function failures(worker: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('worker_failures_total')?.get();
  return metric?.values.find((value) => value.labels.worker === worker)?.value ?? 0;
}

describe('StepScheduler', () => {
  it('skips the credit step while the ledger is unreachable and still expires', async () => {
    let ledgerReachable = false;
    const ran: string[] = [];
    const steps: Step[] = [
      {
        name: 'credit',
        worker: 'spec_credit',
        run: async () => (ran.push('credit'), { handled: 1, unavailable: false }),
        measureDue: noBacklog,
        ready: () => ledgerReachable,
      },
      {
        name: 'expire',
        worker: 'spec_expiry',
        run: async () => (ran.push('expire'), { handled: 0, unavailable: false }),
        measureDue: noBacklog,
      },
    ];
    const scheduler = new StepScheduler(steps, 60_000, logger);
    expect(await scheduler.runOnce()).toBe('idle');
    expect(ran).toEqual(['expire']);
    ledgerReachable = true;
    await scheduler.runOnce();
    expect(ran).toEqual(['expire', 'credit', 'expire']);
  });

  it('backs off after a step met an unavailable ledger, counting no failure', async () => {
    const steps: Step[] = [
      {
        name: 'credit',
        worker: 'spec_credit_unavailable',
        run: async () => ({ handled: 0, unavailable: true }),
        measureDue: noBacklog,
      },
    ];
    expect(await new StepScheduler(steps, 60_000, logger).runOnce()).toBe('unavailable');
    expect(await failures('spec_credit_unavailable')).toBe(0);
  });

  it('tells the step in flight that the replica is stopping, and waits for it', async () => {
    let sawStopping = false;
    let entered: () => void = () => undefined;
    const inStep = new Promise<void>((resolve) => (entered = resolve));
    const steps: Step[] = [
      {
        name: 'credit',
        worker: 'spec_credit_stop',
        run: async (stopping) => {
          entered();
          while (!stopping()) await new Promise((resolve) => setTimeout(resolve, 5));
          sawStopping = true;
          return { handled: 0, unavailable: false };
        },
        measureDue: noBacklog,
      },
    ];
    const scheduler = new StepScheduler(steps, 1, logger);
    scheduler.start();
    await inStep;
    await scheduler.stop();
    expect(sawStopping).toBe(true);
  });
});
