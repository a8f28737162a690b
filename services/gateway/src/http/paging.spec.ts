/**
 * Proves how a validated list query reaches the list RPCs: an absent limit is 0
 * (the service's default page size) and an absent cursor '' (the first page),
 * given ones pass through, and a transfers or USDT sends list carries every filter.
 */
import { listWindow } from './paging';
import { toPayoutListRequest } from './routes/transfers.route';

describe('listWindow', () => {
  it('asks for the default page size and the first page when the query names neither', () => {
    expect(listWindow({})).toEqual({ from: undefined, to: undefined, limit: 0, cursor: '' });
  });

  it('passes the window and the page through as given', () => {
    const query = { from: '2026-01-01', to: '2026-02-01T00:00:00Z', limit: 20, cursor: 'abc_-1' };
    expect(listWindow(query)).toEqual(query);
  });
});

describe('toPayoutListRequest', () => {
  it('carries the partner and every filter of the query', () => {
    const request = toPayoutListRequest('partner-1', {
      status: 'settled',
      partnerReference: 'ref-1',
      idempotencyKey: 'key-1',
      from: '2026-01-01',
      limit: 5,
    });
    expect(request).toEqual({
      partnerId: 'partner-1',
      status: 'settled',
      partnerReference: 'ref-1',
      idempotencyKey: 'key-1',
      from: '2026-01-01',
      to: undefined,
      limit: 5,
      cursor: '',
    });
  });
});
