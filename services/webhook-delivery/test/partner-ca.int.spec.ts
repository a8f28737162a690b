// Proves a partner's own CA is trusted beside the stack's. `npm test` starts the stack
// as a partner with a CA of their own starts theirs (`NODE_EXTRA_CA_CERTS=my-ca.pem npm
// start`): scripts/test.mjs makes a CA the stack does not know, with a localhost
// certificate beside it, and names it in stack.json (`callerCaFile`). A webhook to a
// receiver serving that certificate is delivered on its first attempt, and so is one to
// a receiver serving the stack's own certificate.
import { dirname } from 'node:path';
import { createTestPartner, HttpsReceiver, loadTestStack, startHttpsReceiver } from '@platform/testing';
import { deliveryIdOf, sandboxKesCredit, setWebhook, signatureVerifies, waitForDelivery } from './webhook-test-support';

const WAIT_MS = 20_000;

async function expectDeliveredTo(receiver: HttpsReceiver, reference: string): Promise<void> {
  const partner = await createTestPartner();
  const secret = await setWebhook(partner, receiver.url);
  await sandboxKesCredit(partner, reference);
  const delivered = await waitForDelivery(partner.partnerId, (d) => d.attemptCount > 0, 'the first attempt', WAIT_MS);
  // An untrusted certificate fails the attempt: the delivery is then pending with its error class.
  expect(delivered).toMatchObject({ status: 'delivered', attemptCount: 1 });
  const [request] = await receiver.waitForRequests(1, WAIT_MS);
  expect(deliveryIdOf(request!)).toBe(delivered.deliveryId);
  expect(signatureVerifies(request!, secret)).toBe(true);
}

describe('a partner CA given to the stack in NODE_EXTRA_CA_CERTS', () => {
  it('delivers to a receiver whose certificate the partner CA signed', async () => {
    const { callerCaFile } = loadTestStack();
    if (!callerCaFile)
      throw new Error('the test stack was started without NODE_EXTRA_CA_CERTS (scripts/test.mjs gives it one)');
    const receiver = await startHttpsReceiver({ tlsDir: dirname(callerCaFile) });
    try {
      await expectDeliveredTo(receiver, 'OWNCA1');
    } finally {
      await receiver.close();
    }
  });

  it("still delivers to a receiver with the stack's own certificate", async () => {
    const receiver = await startHttpsReceiver();
    try {
      await expectDeliveredTo(receiver, 'STACKCA1');
    } finally {
      await receiver.close();
    }
  });
});
