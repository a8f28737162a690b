// Proves the events page's body: webhook-delivery's page_json is answered as
// it came, and from a webhook-delivery of the release before it (one message
// per event, no page_json) the same bytes are joined here, `[]` for none.
import type { webhookDeliveryPartnerFeed } from '@platform/proto';
import { eventsPageBody } from './webhook-events.route';

const envelopes = ['{"id":"a","type":"credit.received","data":{"note":"Ksh «1»"}}', '{"id":"b"}'];

function response(overrides: Partial<webhookDeliveryPartnerFeed.ListEventsResponse>) {
  return { events: [], nextAfterEventId: '', retentionDays: 30, pageJson: Buffer.alloc(0), ...overrides };
}

describe('eventsPageBody', () => {
  it('answers page_json as it came', () => {
    const pageJson = Buffer.from(`[${envelopes.join(',')}]`, 'utf8');
    expect(eventsPageBody(response({ pageJson }))).toBe(pageJson);
  });

  it('joins one message per event into the same bytes when page_json is absent', () => {
    const events = envelopes.map((envelopeJson, index) => ({
      eventId: String(index),
      eventType: 'credit.received',
      envelopeJson,
    }));
    expect(eventsPageBody(response({ events })).equals(Buffer.from(`[${envelopes.join(',')}]`, 'utf8'))).toBe(true);
    expect(eventsPageBody(response({})).toString('utf8')).toBe('[]');
  });
});
