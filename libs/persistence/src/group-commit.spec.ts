// Proves group commit: an item alone is written on the next tick; items submitted
// while a write runs are written together by the next one, never more than the
// bound at once; each caller gets its own outcome; a failed write rejects only
// the items in it, and the next batch is tried afresh.
import { GroupCommit } from './group-commit';

function deferred() {
  let release: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

describe('GroupCommit', () => {
  it('writes an item alone at once, then groups what arrives during a write', async () => {
    const batches: number[][] = [];
    const gate = deferred();
    const group = new GroupCommit<number, string>(async (items) => {
      batches.push([...items]);
      if (batches.length === 1) await gate.promise;
      return items.map((item) => `done-${item}`);
    }, 10);
    const first = group.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [2, 3, 4].map((item) => group.submit(item));
    gate.release();
    expect(await first).toBe('done-1');
    expect(await Promise.all(rest)).toEqual(['done-2', 'done-3', 'done-4']);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('never writes more than the bound at once', async () => {
    const sizes: number[] = [];
    const group = new GroupCommit<number, number>(async (items) => {
      sizes.push(items.length);
      return [...items];
    }, 3);
    expect(await Promise.all(Array.from({ length: 7 }, (_, index) => group.submit(index)))).toEqual([
      0, 1, 2, 3, 4, 5, 6,
    ]);
    expect(sizes).toEqual([3, 3, 1]);
  });

  it('rejects the items of a failed write only, and tries the next batch afresh', async () => {
    let calls = 0;
    const group = new GroupCommit<number, number>(async (items) => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
      return [...items];
    }, 2);
    const results = await Promise.allSettled([1, 2, 3].map((item) => group.submit(item)));
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
  });

  it('refuses a write that answers for the wrong number of items', async () => {
    const group = new GroupCommit<number, number>(async () => [], 5);
    await expect(group.submit(1)).rejects.toThrow(/0 outcomes for 1 items/);
  });
});
