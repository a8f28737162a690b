// Proves what a named prepared read sends to the pool: a name made of the purpose and a
// hash of the text (the same for the same text, different for another text, so a connection
// never runs one text under another's name), the values as given, rows as objects or arrays;
// and that a purpose that is not a short snake_case word is refused.
import type { DataSource, EntityManager } from 'typeorm';
import { preparedStatementName, queryPrepared, queryPreparedArrays, queryPreparedIn } from './prepared-query';

function fakeDataSource(rows: unknown[]) {
  const sent: unknown[] = [];
  const dataSource = {
    driver: {
      master: {
        query: async (config: unknown) => {
          sent.push(config);
          return { rows };
        },
      },
    },
  } as unknown as DataSource;
  return { dataSource, sent };
}

describe('preparedStatementName', () => {
  it('names a text by its purpose and a hash of it, the same each time', () => {
    const name = preparedStatementName('feed_page', 'SELECT 1');
    expect(name).toMatch(/^feed_page_[0-9a-f]{16}$/);
    expect(preparedStatementName('feed_page', 'SELECT 1')).toBe(name);
    expect(preparedStatementName('feed_page', 'SELECT 2')).not.toBe(name);
  });

  it('refuses a purpose that is not a short snake_case word', () => {
    expect(() => preparedStatementName('Feed page', 'SELECT 3')).toThrow(/snake_case/);
    expect(() => preparedStatementName('a'.repeat(41), 'SELECT 4')).toThrow(/snake_case/);
  });
});

describe('queryPrepared', () => {
  it('sends the named statement with its values and gives back the rows', async () => {
    const { dataSource, sent } = fakeDataSource([{ n: 1 }]);
    await expect(queryPrepared(dataSource, 'probe', 'SELECT $1::int AS n', [1])).resolves.toEqual([{ n: 1 }]);
    expect(sent).toEqual([
      { name: preparedStatementName('probe', 'SELECT $1::int AS n'), text: 'SELECT $1::int AS n', values: [1] },
    ]);
  });

  it('asks for rows as arrays when told', async () => {
    const { dataSource, sent } = fakeDataSource([[1, 'a']]);
    await expect(queryPreparedArrays(dataSource, 'probe', 'SELECT 1, $1', ['a'])).resolves.toEqual([[1, 'a']]);
    expect(sent).toEqual([expect.objectContaining({ rowMode: 'array', values: ['a'] })]);
  });

  it('refuses a data source that has no pool yet', async () => {
    const dataSource = { driver: {} } as unknown as DataSource;
    await expect(queryPrepared(dataSource, 'probe', 'SELECT 1', [])).rejects.toThrow(/not initialised/);
  });
});

describe('queryPreparedIn', () => {
  function fakeTransaction(rows: unknown[], released = false) {
    const sent: unknown[] = [];
    const client = {
      query: async (config: unknown) => {
        sent.push(config);
        return { rows };
      },
    };
    const manager = { queryRunner: { isReleased: released, connect: async () => client } } as unknown as EntityManager;
    return { manager, sent };
  }

  it("sends the named statement on the transaction's own connection", async () => {
    const { manager, sent } = fakeTransaction([{ n: 2 }]);
    await expect(queryPreparedIn(manager, 'probe', 'SELECT $1::int AS n FOR UPDATE', [2])).resolves.toEqual([{ n: 2 }]);
    expect(sent).toEqual([
      {
        name: preparedStatementName('probe', 'SELECT $1::int AS n FOR UPDATE'),
        text: 'SELECT $1::int AS n FOR UPDATE',
        values: [2],
      },
    ]);
  });

  it('runs on the pool for a manager outside any transaction', async () => {
    const { dataSource, sent } = fakeDataSource([{ n: 3 }]);
    const manager = { queryRunner: undefined, connection: dataSource } as unknown as EntityManager;
    await expect(queryPreparedIn(manager, 'probe', 'SELECT 3 AS n', [])).resolves.toEqual([{ n: 3 }]);
    expect(sent).toEqual([expect.objectContaining({ text: 'SELECT 3 AS n' })]);
  });

  it("runs on a stand-in's pool when the manager is itself a stand-in for the data source", async () => {
    const { dataSource, sent } = fakeDataSource([{ n: 5 }]);
    const manager = dataSource as unknown as EntityManager;
    await expect(queryPreparedIn(manager, 'probe', 'SELECT 5 AS n', [])).resolves.toEqual([{ n: 5 }]);
    expect(sent).toEqual([expect.objectContaining({ text: 'SELECT 5 AS n' })]);
  });

  it('refuses a transaction that has ended', async () => {
    const { manager, sent } = fakeTransaction([], true);
    await expect(queryPreparedIn(manager, 'probe', 'SELECT 4', [])).rejects.toThrow(/ended/);
    expect(sent).toEqual([]);
  });
});
