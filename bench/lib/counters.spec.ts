import { databaseCounters, difference, perOperation, perSecond, tableCounters, total } from './counters';

describe('statistics counters', () => {
  it('names pg_stat_database counters; rows read are tuples returned plus fetched', () => {
    expect(
      databaseCounters({
        datname: 'svc_trading',
        xact_commit: '120',
        xact_rollback: '1',
        tup_returned: '900',
        tup_fetched: '100',
        tup_inserted: '30',
        tup_updated: '20',
        tup_deleted: '0',
      }),
    ).toEqual({
      commits: 120,
      rollbacks: 1,
      rowsRead: 1000,
      rowsReturned: 900,
      rowsFetched: 100,
      rowsInserted: 30,
      rowsUpdated: 20,
      rowsDeleted: 0,
    });
  });

  it('names pg_stat_user_tables counters; rows read are sequentially read plus fetched by index', () => {
    expect(
      tableCounters({
        relname: 'cap_usages',
        seq_scan: '3',
        seq_tup_read: '4000',
        idx_scan: '10',
        idx_tup_fetch: '25',
        n_tup_ins: '5',
        n_tup_upd: '1',
        n_tup_del: '0',
      }),
    ).toMatchObject({
      rowsRead: 4025,
      seqScans: 3,
      seqRowsRead: 4000,
      indexScans: 10,
      indexRowsFetched: 25,
      rowsInserted: 5,
      rowsUpdated: 1,
    });
  });

  it('subtracts snapshots leaf by leaf; a table new in the later snapshot starts from zero; null stays null', () => {
    const before = { tables: { svc_trading: { orders: { rowsRead: 10 } } }, cpu: { redis: null, trading: 5 } };
    const after = {
      tables: { svc_trading: { orders: { rowsRead: 25 }, cap_usages: { rowsRead: 7 } } },
      cpu: { redis: 4, trading: 9 },
    };
    expect(difference(after, before)).toEqual({
      tables: { svc_trading: { orders: { rowsRead: 15 }, cap_usages: { rowsRead: 7 } } },
      cpu: { redis: null, trading: 4 },
    });
  });

  it('per operation, takes off the idle background scaled to the window, never below zero', () => {
    const window = { trading: 1300, redis: 10, ledger: null };
    const idle = { trading: 100, redis: 50, ledger: 3 }; // over 10 s
    expect(perOperation(window, idle, { windowSeconds: 30, idleSeconds: 10, operations: 100 })).toEqual({
      trading: (1300 - 300) / 100,
      redis: 0,
      ledger: null,
    });
  });

  it('per operation without an idle measurement is the raw figure', () => {
    expect(perOperation({ a: { commits: 50 } }, null, { windowSeconds: 30, idleSeconds: 10, operations: 10 })).toEqual({
      a: { commits: 5 },
    });
  });

  it('sums every leaf and divides per second', () => {
    expect(total({ a: 1, b: { c: 2, d: null } })).toBe(3);
    expect(perSecond({ a: 10, b: null }, 5)).toEqual({ a: 2, b: null });
  });
});
