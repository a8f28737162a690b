// Proves the feed's type filter and the webhooks' documentation name the same twelve event types.
import { WEBHOOK_EVENTS } from '../webhooks';
import { WEBHOOK_EVENT_TYPES } from './event-types';

it('lists the documented webhook event types, in their order', () => {
  expect([...WEBHOOK_EVENT_TYPES]).toEqual(WEBHOOK_EVENTS.map((event) => event.type));
});
