// Proves a bus event becomes the partner's envelope: partnerId dropped, keys in
// the order id, type, createdAt, data, and data carried through untouched.
import type { BusEvent } from '@platform/events';
import { serialisePartnerEnvelope, toPartnerEnvelope } from './partner-envelope';

const busEvent: BusEvent = {
  partnerId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
  data: { transactionId: 't-1', amount: { currency: 'KES', value: '1500.00' }, reference: null },
  createdAt: '2026-01-01T00:00:00.000Z',
  type: 'credit.received',
  id: '0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f',
};

describe('partner envelope', () => {
  it('drops partnerId and orders the keys id, type, createdAt, data', () => {
    const envelope = toPartnerEnvelope(busEvent);
    expect(Object.keys(envelope)).toEqual(['id', 'type', 'createdAt', 'data']);
    expect(envelope).not.toHaveProperty('partnerId');
  });

  it('serialises to the exact body text partners receive', () => {
    expect(serialisePartnerEnvelope(busEvent)).toBe(
      '{"id":"0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f","type":"credit.received","createdAt":"2026-01-01T00:00:00.000Z",' +
        '"data":{"transactionId":"t-1","amount":{"currency":"KES","value":"1500.00"},"reference":null}}',
    );
  });

  it('keeps amounts as the strings they were', () => {
    expect(JSON.parse(serialisePartnerEnvelope(busEvent)).data.amount.value).toBe('1500.00');
  });

  it('ignores any extra field on the bus envelope', () => {
    const extended = { ...busEvent, routing: 'x' } as BusEvent;
    expect(Object.keys(JSON.parse(serialisePartnerEnvelope(extended)))).toEqual(['id', 'type', 'createdAt', 'data']);
  });
});
