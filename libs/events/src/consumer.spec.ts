// Proves that only well-formed bus events reach a handler.
import { parseBusEvent } from './consumer';

const good = {
  id: 'e1',
  type: 'credit.received',
  createdAt: '2026-01-01T00:00:00.000Z',
  partnerId: 'p1',
  data: { a: 1 },
};

describe('parseBusEvent', () => {
  it('accepts a well-formed event', () => {
    expect(parseBusEvent(Buffer.from(JSON.stringify(good)))?.id).toBe('e1');
  });

  it.each([
    ['not json', Buffer.from('{')],
    ['unknown type', Buffer.from(JSON.stringify({ ...good, type: 'order.created' }))],
    ['missing partner', Buffer.from(JSON.stringify({ ...good, partnerId: undefined }))],
    ['null data', Buffer.from(JSON.stringify({ ...good, data: null }))],
  ])('rejects %s', (_, body) => {
    expect(parseBusEvent(body)).toBeNull();
  });
});
