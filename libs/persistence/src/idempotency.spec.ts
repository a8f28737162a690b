// Proves claimIdempotently's answers with an in-memory key table standing in
// for the caller's (claim = insert unless the key is taken): a first request
// claims and creates, a repeat replays the original without claiming, another
// body under the key is refused with the caller's stable code, a claim lost
// to a twin replays the twin's row, a pending twin is waited for (and its key
// claimed again when it was given up, or taken over at once when its owner
// released its claim), and the wait is bounded.
// libs/persistence/test/idempotency.int.spec.ts proves the same races against
// real PostgreSQL.
import { isAppError } from '@platform/errors';
import { claimIdempotently, IdempotentCreate } from './idempotency';

interface Row {
  id: string;
  requestHash: string;
  status: 'creating' | 'done';
}

class KeyTable {
  row: Row | null = null;
  claims = 0;
  async find(): Promise<Row | null> {
    return this.row && { ...this.row };
  }
  async claim(row: Row): Promise<Row | null> {
    this.claims += 1;
    if (this.row) return null;
    this.row = { ...row };
    return { ...row };
  }
}

function create(
  table: KeyTable,
  requestHash: string,
  extra: Partial<IdempotentCreate<Row>> = {},
): IdempotentCreate<Row> {
  return {
    requestHash,
    find: () => table.find(),
    claim: () => table.claim({ id: `made-by-${requestHash}`, requestHash, status: 'done' }),
    ...extra,
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('claimIdempotently', () => {
  it('claims the key and runs the create for a first request', async () => {
    const table = new KeyTable();
    const result = await claimIdempotently(
      create(table, 'h1', { create: async (claimed) => ({ ...claimed, id: `${claimed.id}-created` }) }),
    );
    expect(result).toEqual({
      resource: { id: 'made-by-h1-created', requestHash: 'h1', status: 'done' },
      replayed: false,
    });
  });

  it('replays the original for the same request, without claiming or prechecking', async () => {
    const table = new KeyTable();
    await claimIdempotently(create(table, 'h1'));
    const precheck = jest.fn(() => {
      throw new Error('a repeat is answered before the body is checked');
    });
    const result = await claimIdempotently(create(table, 'h1', { precheck }));
    expect(result).toEqual({ resource: { id: 'made-by-h1', requestHash: 'h1', status: 'done' }, replayed: true });
    expect(table.claims).toBe(1);
    expect(precheck).not.toHaveBeenCalled();
  });

  it('refuses another request under the same key with the stable code the caller names', async () => {
    const table = new KeyTable();
    await claimIdempotently(create(table, 'h1'));
    await expect(codeOf(claimIdempotently(create(table, 'h2')))).resolves.toBe('IDEMPOTENCY_KEY_REUSED');
    await expect(codeOf(claimIdempotently(create(table, 'h2', { reusedError: 'LEDGER_ID_REUSED' })))).resolves.toBe(
      'LEDGER_ID_REUSED',
    );
  });

  it('replays the twin that won the claim between the look and the claim', async () => {
    const table = new KeyTable();
    let looks = 0;
    const result = await claimIdempotently(
      create(table, 'h1', {
        // The first look finds nothing; a twin claims before this request does.
        find: async () => (looks++ === 0 ? null : table.find()),
        claim: async () => {
          await table.claim({ id: 'twin', requestHash: 'h1', status: 'done' });
          return table.claim({ id: 'mine', requestHash: 'h1', status: 'done' });
        },
      }),
    );
    expect(result).toEqual({ resource: { id: 'twin', requestHash: 'h1', status: 'done' }, replayed: true });
  });

  it('waits for a pending twin and answers its finished row', async () => {
    const table = new KeyTable();
    table.row = { id: 'twin', requestHash: 'h1', status: 'creating' };
    setTimeout(() => {
      table.row = { id: 'twin', requestHash: 'h1', status: 'done' };
    }, 150);
    const result = await claimIdempotently(
      create(table, 'h1', { pending: (row) => row.status === 'creating', reread: () => table.find() }),
    );
    expect(result).toEqual({ resource: { id: 'twin', requestHash: 'h1', status: 'done' }, replayed: true });
  });

  it('claims the key again when the pending twin was refused and gave it up', async () => {
    const table = new KeyTable();
    table.row = { id: 'twin', requestHash: 'h1', status: 'creating' };
    setTimeout(() => {
      table.row = null;
    }, 150);
    const result = await claimIdempotently(
      create(table, 'h1', { pending: (row) => row.status === 'creating', reread: () => table.find() }),
    );
    expect(result).toEqual({ resource: { id: 'made-by-h1', requestHash: 'h1', status: 'done' }, replayed: false });
  });

  it('answers SERVICE_UNAVAILABLE when the twin stays pending past the bound', async () => {
    const table = new KeyTable();
    table.row = { id: 'twin', requestHash: 'h1', status: 'creating' };
    const started = Date.now();
    const code = await codeOf(
      claimIdempotently(create(table, 'h1', { pending: () => true, reread: () => table.find(), twinWaitMsMax: 250 })),
    );
    expect(code).toBe('SERVICE_UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('takes over a twin its owner gave up, at once, and claims the key afresh', async () => {
    const table = new KeyTable();
    table.row = { id: 'abandoned', requestHash: 'h1', status: 'creating' };
    const started = Date.now();
    const taken: string[] = [];
    const result = await claimIdempotently(
      create(table, 'h1', {
        pending: (row) => row.status === 'creating',
        reread: () => table.find(),
        takeOver: async (row) => {
          taken.push(row.id);
          table.row = null;
          return true;
        },
        twinWaitMsMax: 10_000,
      }),
    );
    expect(result).toEqual({ resource: { id: 'made-by-h1', requestHash: 'h1', status: 'done' }, replayed: false });
    expect(taken).toEqual(['abandoned']);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('keeps waiting for a twin whose owner still holds its claim, and takes it over once released', async () => {
    const table = new KeyTable();
    table.row = { id: 'held', requestHash: 'h1', status: 'creating' };
    let released = false;
    setTimeout(() => {
      released = true;
    }, 250);
    const attempts: boolean[] = [];
    const result = await claimIdempotently(
      create(table, 'h1', {
        pending: (row) => row.status === 'creating',
        reread: () => table.find(),
        takeOver: async () => {
          attempts.push(released);
          if (!released) return false;
          table.row = null;
          return true;
        },
      }),
    );
    expect(result.replayed).toBe(false);
    expect(attempts.filter((tookOver) => !tookOver).length).toBeGreaterThan(1);
    expect(attempts[attempts.length - 1]).toBe(true);
  });

  it('never takes over a twin that finished', async () => {
    const table = new KeyTable();
    table.row = { id: 'twin', requestHash: 'h1', status: 'done' };
    const takeOver = jest.fn(async () => true);
    const result = await claimIdempotently(
      create(table, 'h1', { pending: (row) => row.status === 'creating', reread: () => table.find(), takeOver }),
    );
    expect(result.replayed).toBe(true);
    expect(takeOver).not.toHaveBeenCalled();
  });

  it('runs the precheck of a first request before claiming, so a refused body claims nothing', async () => {
    const table = new KeyTable();
    const refusal = new Error('over the cap');
    await expect(
      claimIdempotently(
        create(table, 'h1', {
          precheck: () => {
            throw refusal;
          },
        }),
      ),
    ).rejects.toBe(refusal);
    expect(table.claims).toBe(0);
  });

  it('waits for an asynchronous precheck: a refusal it reads claims nothing, a pass claims once', async () => {
    const refused = new KeyTable();
    const refusal = new Error('partner suspended');
    await expect(
      claimIdempotently(create(refused, 'h1', { precheck: async () => Promise.reject(refusal) })),
    ).rejects.toBe(refusal);
    expect(refused.claims).toBe(0);
    const passed = new KeyTable();
    const order: string[] = [];
    const result = await claimIdempotently(
      create(passed, 'h1', {
        precheck: async () => {
          await new Promise((resolve) => setImmediate(resolve));
          order.push('precheck');
        },
        claim: async () => {
          order.push('claim');
          return passed.claim({ id: 'made', requestHash: 'h1', status: 'done' });
        },
      }),
    );
    expect(result).toEqual({ resource: { id: 'made', requestHash: 'h1', status: 'done' }, replayed: false });
    expect(order).toEqual(['precheck', 'claim']);
  });
});
