// Proves the keyset pages' cursor and bounds: a cursor round-trips a position
// with PostgreSQL's microseconds (and reads an older ISO-millisecond cursor),
// anything else is refused; bad bounds are named; the next cursor points at the
// last row of a full page and is empty on the last page; the conditions compare
// at full precision.
import {
  decodeKeysetCursor,
  encodeKeysetCursor,
  keysetConditions,
  keysetTimeSql,
  newestFirstPageSql,
  pageOf,
  PAGE_LIMIT_DEFAULT,
  readPageBounds,
} from './keyset-page';

const ID = '0b7e6a3c-1f0e-4c1e-9d59-5a0f7a7b2c11';

describe('keyset cursors', () => {
  it.each(['2026-11-26 07:33:37.123456+00', '2026-11-26 07:33:37+05:30', '2026-11-26T07:33:37.123Z'])(
    'round-trips %s',
    (createdAt) => {
      expect(decodeKeysetCursor(encodeKeysetCursor({ createdAt, id: ID }))).toEqual({ createdAt, id: ID });
    },
  );

  it.each([
    ['not base64url', '***'],
    ['too long', 'A'.repeat(201)],
    ['no id', Buffer.from('2026-11-26 07:33:37+00').toString('base64url')],
    ['a bad id', Buffer.from(`2026-11-26 07:33:37+00|${ID.toUpperCase()}`).toString('base64url')],
    ['a bad time', Buffer.from(`yesterday|${ID}`).toString('base64url')],
    ['an impossible time', Buffer.from(`2026-13-40 07:33:37+00|${ID}`).toString('base64url')],
    ['an extra part', Buffer.from(`2026-11-26 07:33:37+00|${ID}|x`).toString('base64url')],
  ])('refuses %s', (_, cursor) => {
    expect(decodeKeysetCursor(cursor)).toBeNull();
  });
});

describe('readPageBounds', () => {
  it('defaults the limit and fetches one more than the page', () => {
    const bad: string[] = [];
    expect(readPageBounds({ limit: 0, cursor: '' }, bad)).toEqual({
      from: null,
      to: null,
      after: null,
      fetchLimit: PAGE_LIMIT_DEFAULT + 1,
      pageLimit: PAGE_LIMIT_DEFAULT,
    });
    expect(bad).toEqual([]);
  });

  it('names every bad parameter', () => {
    const bad: string[] = ['status'];
    readPageBounds({ from: 'x', to: 'y', limit: 101, cursor: 'nope!' }, bad);
    expect(bad).toEqual(['status', 'from', 'to', 'limit', 'cursor']);
  });
});

describe('pageOf', () => {
  const bounds = readPageBounds({ limit: 2, cursor: '' }, []);
  const rows = [
    { at: 'c', id: ID },
    { at: 'b', id: ID },
    { at: 'a', id: ID },
  ];
  const position = (row: { at: string; id: string }) => ({
    createdAt: `2026-11-26 07:33:3${row.at === 'b' ? 7 : 8}.000001+00`,
    id: row.id,
  });

  it('gives the page and a cursor at its last row when more follow', () => {
    const { page, nextCursor } = pageOf(rows, bounds, position);
    expect(page).toEqual(rows.slice(0, 2));
    expect(decodeKeysetCursor(nextCursor)).toEqual({ createdAt: '2026-11-26 07:33:37.000001+00', id: ID });
  });

  it('gives no cursor on the last page', () => {
    expect(pageOf(rows.slice(0, 2), bounds, position).nextCursor).toBe('');
  });
});

describe('keysetConditions', () => {
  it("numbers its parameters after the caller's and compares the position at full precision", () => {
    const cursor = encodeKeysetCursor({ createdAt: '2026-11-26 07:33:37.123456+00', id: ID });
    const bounds = readPageBounds(
      { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z', limit: 10, cursor },
      [],
    );
    const parameters: unknown[] = ['partner'];
    expect(keysetConditions(bounds, parameters)).toEqual([
      'created_at >= $2',
      'created_at < $3',
      '(created_at, id) < ($4::timestamptz, $5::uuid)',
    ]);
    expect(parameters).toEqual([
      'partner',
      new Date('2026-11-01T00:00:00.000Z'),
      new Date('2026-12-01T00:00:00.000Z'),
      '2026-11-26 07:33:37.123456+00',
      ID,
    ]);
  });
});

describe('newestFirstPageSql', () => {
  it('adds only the filters that are set, then the page bounds and the limit, newest first', () => {
    const bounds = readPageBounds({ to: '2026-12-01T00:00:00.000Z', limit: 10, cursor: '' }, []);
    const { sql, parameters } = newestFirstPageSql({
      table: 'orders',
      select: 'order_id',
      where: ['partner_id = $1'],
      parameters: ['partner'],
      equals: { status: 'settled', partner_reference: null },
      bounds,
      columns: { createdAt: 'created_at', id: 'order_id' },
    });
    expect(sql.replace(/\s+/g, ' ')).toBe(
      'SELECT order_id, ' +
        keysetTimeSql('created_at') +
        ' AS "createdAtExact" FROM orders' +
        ' WHERE partner_id = $1 AND status = $2 AND created_at < $3 ORDER BY created_at DESC, order_id DESC LIMIT $4',
    );
    expect(parameters).toEqual(['partner', 'settled', new Date('2026-12-01T00:00:00.000Z'), bounds.fetchLimit]);
  });
});
