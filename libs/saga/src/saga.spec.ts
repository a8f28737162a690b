// Proves the saga's contract with steps that record what they do in one
// journal: compensations run newest first after a failure, no step runs after
// the failing one, a compensation that fails is reported while the caller
// still gets the step's own error (and the older compensations stay undone,
// for the caller's recovery to finish), and a step's compensation is recorded
// before it runs, so a step that failed midway is undone too.
import { CompensationFailure, Saga, SagaStep } from './index';

function journaled(
  journal: string[],
  name: string,
  options: { fails?: boolean; compensationFails?: boolean } = {},
): SagaStep {
  return {
    name,
    run: async () => {
      journal.push(`run ${name}`);
      if (options.fails) throw new Error(`${name} failed`);
    },
    compensate: async () => {
      journal.push(`undo ${name}`);
      if (options.compensationFails) throw new Error(`undo ${name} failed`);
    },
  };
}

describe('Saga', () => {
  it('runs every step in order and undoes nothing when all succeed', async () => {
    const journal: string[] = [];
    const failures: CompensationFailure[] = [];
    await new Saga((failure) => failures.push(failure)).run([journaled(journal, 'a'), journaled(journal, 'b')]);
    expect(journal).toEqual(['run a', 'run b']);
    expect(failures).toEqual([]);
  });

  it('undoes the steps done, newest first, including the failing one, and runs no step after it', async () => {
    const journal: string[] = [];
    const saga = new Saga(() => undefined);
    const steps = [
      {
        name: 'claim',
        compensate: async () => {
          journal.push('undo claim');
        },
      },
      journaled(journal, 'a'),
      journaled(journal, 'b', { fails: true }),
      journaled(journal, 'c'),
    ];
    await expect(saga.run(steps)).rejects.toThrow('b failed');
    expect(journal).toEqual(['run a', 'run b', 'undo b', 'undo a', 'undo claim']);
  });

  it('reports a failing compensation, stops unwinding there, and rethrows the original error', async () => {
    const journal: string[] = [];
    const failures: CompensationFailure[] = [];
    const saga = new Saga((failure) => failures.push(failure));
    const steps = [
      journaled(journal, 'a'),
      journaled(journal, 'b', { compensationFails: true }),
      journaled(journal, 'c', { fails: true }),
    ];
    await expect(saga.run(steps)).rejects.toThrow('c failed');
    expect(journal).toEqual(['run a', 'run b', 'run c', 'undo c', 'undo b']);
    expect(failures).toHaveLength(1);
    expect(failures[0].step).toBe('b');
    expect((failures[0].error as Error).message).toBe('undo b failed');
    expect((failures[0].cause as Error).message).toBe('c failed');
  });

  it('undoes the steps of earlier runs when asked, newest first, and answers whether all were undone', async () => {
    const journal: string[] = [];
    const saga = new Saga(() => undefined);
    await saga.run([journaled(journal, 'a')]);
    await saga.run([journaled(journal, 'b')]);
    await expect(saga.compensate(new Error('later failure'))).resolves.toBe(true);
    expect(journal).toEqual(['run a', 'run b', 'undo b', 'undo a']);
    // Nothing is left recorded: unwinding again undoes nothing twice.
    await expect(saga.compensate(new Error('again'))).resolves.toBe(true);
    expect(journal).toHaveLength(4);
  });

  it('answers false when a compensation fails, keeping it for another attempt', async () => {
    const journal: string[] = [];
    const saga = new Saga(() => undefined);
    let undoFails = true;
    await saga.run([
      {
        name: 'a',
        run: async () => undefined,
        compensate: async () => {
          journal.push('undo a');
          if (undoFails) throw new Error('down');
        },
      },
    ]);
    await expect(saga.compensate(new Error('later'))).resolves.toBe(false);
    undoFails = false;
    await expect(saga.compensate(new Error('later'))).resolves.toBe(true);
    expect(journal).toEqual(['undo a', 'undo a']);
  });
});
