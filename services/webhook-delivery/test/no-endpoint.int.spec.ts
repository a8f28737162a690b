// Proves the policy for events that arrive before a partner has an endpoint (spec
// 6.4: sent late rather than never): the delivery is recorded as `no_endpoint`, a
// replay leaves it held while there is still nowhere to send it, and `webhook set`
// sends it, with the delivery id it was recorded under, signed with the new secret.
import { createTestPartner, runOps, startHttpsReceiver } from '@platform/testing';
import {
  deliveryIdOf,
  listDeliveries,
  sandboxKesCredit,
  setWebhook,
  signatureVerifies,
  waitForDelivery,
} from './webhook-test-support';

const WAIT_MS = 20_000;

describe('events for a partner without an endpoint', () => {
  it('holds the delivery and sends it once an endpoint is set', async () => {
    const partner = await createTestPartner();
    await sandboxKesCredit(partner, 'EARLY1');
    const held = await waitForDelivery(
      partner.partnerId,
      (d) => d.status === 'no_endpoint',
      'the held delivery',
      WAIT_MS,
    );
    expect(held.attemptCount).toBe(0);

    const replay = await runOps<{ deliveryId: string; status: string }>([
      'deliveries',
      'replay',
      '--delivery',
      held.deliveryId,
    ]);
    expect(replay).toEqual({ deliveryId: held.deliveryId, status: 'no_endpoint' });

    const receiver = await startHttpsReceiver();
    try {
      const secret = await setWebhook(partner, receiver.url);
      const [request] = await receiver.waitForRequests(1, WAIT_MS);
      expect(deliveryIdOf(request!)).toBe(held.deliveryId);
      expect(signatureVerifies(request!, secret)).toBe(true);
      expect(JSON.parse(request!.body)).toMatchObject({ id: held.eventId, type: 'credit.received' });
      await waitForDelivery(
        partner.partnerId,
        (d) => d.deliveryId === held.deliveryId && d.status === 'delivered',
        'the held delivery to be delivered',
        WAIT_MS,
      );
      expect(await listDeliveries(partner.partnerId)).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
