// Proves that killing a service with SIGKILL in the middle of its work loses
// nothing and does nothing twice. Runs in the serial `faults` project, alone.
// - trading and the gateway, each killed while buy orders are being created
//   (quotes, orders, holds and cap reservations in flight; the kill comes once
//   two orders are committed), then restarted:
//   every answer given was 202 or a clean 503 (the gateway's own death is a
//   transport failure); retrying every partnerReference afterwards returns the
//   original order or creates it once; each order ends with its money whole
//   (one cap usage, one hold ended exactly once, none for an order that does
//   not exist: money-support.ts); the balances equal the funding less the
//   settled orders; the ledger reconciles; and every order's final event
//   reaches the partner's webhook (the outbox relay resumed).
// - the webhook-delivery worker killed while a delivery is in flight (the
//   receiver holds the response open), then restarted: once the lease runs out
//   the event is delivered, with one delivery row for the event and endpoint,
//   seen by the receiver at least once, and the delivery ends `delivered`.

import {
  createTestPartner,
  loadTestStack,
  PartnerHttpClient,
  stackInfra,
  waitFor,
  setPartnerWebhook,
} from '@platform/testing';
import { expectEnvelope, sleep } from '../test/support';
import { armKillEveryReplica, killStand } from './kill-support';
import {
  Attempt,
  expectBalancesMatch,
  expectLedgerReconciles,
  expectOrdersWhole,
  MoneyPartner,
  moneyPartner,
  ordersOf,
  ordersTerminated,
  placeBuy,
  statusOf,
} from './money-support';

const ORDERS_IN_FLIGHT = 12;
const ORDER_KES = '100.00';
const FUNDING_KES = '100000.00';
/** Orders start this far apart, so the kill lands among them. */
const ORDER_SPACING_MS = 100;
/** The kill comes once this many orders are committed: some whole before it, the rest in flight or after. */
const COMMITTED_BEFORE_KILL = 2;
const COMMIT_POLL_MS = 10;
const COMMIT_WAIT_MS = 20_000;
const RECOVERY_TIMEOUT_MS = 60_000;
const RECOVERY_POLL_MS = 250;
const WEBHOOK_WAIT_MS = 60_000;
/** The test stack's DELIVERY_LEASE_MS (15 s, scripts/test.mjs), reconciliation and the retry itself. */
const RECLAIM_WAIT_MS = 45_000;
/** Lets the killed worker's connection close before the receiver stops holding answers. */
const SOCKET_CLOSE_MS = 500;
const FAULT_TEST_TIMEOUT_MS = 150_000;

const stand = killStand();

// Whatever a failed test left killed is started again before the next test (a no-op when all run),
// so one failure is not repeated by every test after it.
afterEach(() => stackInfra.startServices());

async function setWebhook(partnerId: string): Promise<void> {
  await setPartnerWebhook(partnerId, stand.receiver.url);
}

function webhooksNaming(id: string) {
  return stand.receiver.requests.filter((request) => request.body.includes(id));
}

/** Each answer given while the service died: an order, a clean 503, or (the gateway itself dying) no answer. */
function expectCleanAnswers(answers: Attempt[], service: string): void {
  for (const [index, answer] of answers.entries()) {
    if ('failed' in answer) {
      expect({ index, service, answer: statusOf(answer) }).toEqual({
        index,
        service: 'gateway',
        answer: 'transport failure',
      });
    } else if (answer.status !== 202 && answer.status !== 201) {
      expect({ index, status: answer.status }).toEqual({ index, status: 503 });
      expectEnvelope(answer, `order ${index} while ${service} died`);
    }
  }
}

/** Retries every reference until it answers 202: the original order, or one created now. */
async function retryEach(p: MoneyPartner, references: string[]): Promise<Map<string, string>> {
  const orderIds = new Map<string, string>();
  for (const reference of references) {
    const order = await waitFor(
      async () => {
        const answer = await placeBuy(p.http, reference, ORDER_KES);
        return !('failed' in answer) && answer.status === 202 ? answer.body : undefined;
      },
      { timeoutMs: RECOVERY_TIMEOUT_MS, intervalMs: RECOVERY_POLL_MS, what: `order ${reference} after the restart` },
    );
    orderIds.set(reference, order.orderId);
  }
  return orderIds;
}

describe.each(['trading', 'gateway'])('%s killed with SIGKILL while buy orders are created', (service) => {
  it(
    'leaves every order whole or absent, retries create once, the ledger reconciles and the outbox relay resumes',
    async () => {
      const p = await moneyPartner(FUNDING_KES);
      await setWebhook(p.partner.partnerId);
      const references = Array.from({ length: ORDERS_IN_FLIGHT }, (_, index) => `kill-${service}-${index}`);
      const kill = await armKillEveryReplica(service);
      const attempts = references.map((reference, index) =>
        sleep(index * ORDER_SPACING_MS).then(() => placeBuy(p.http, reference, ORDER_KES)),
      );
      await waitFor(
        async () =>
          (await ordersOf(stand.pools, p.partner.partnerId)).length >= COMMITTED_BEFORE_KILL ? true : undefined,
        { timeoutMs: COMMIT_WAIT_MS, intervalMs: COMMIT_POLL_MS, what: `${COMMITTED_BEFORE_KILL} orders committed` },
      );
      kill();
      const answers = await Promise.all(attempts);
      console.log(`${service} killed: answers before the restart: ${answers.map(statusOf).join(', ')}`);
      // The kill landed among the creates: not every one of them was answered.
      expect(answers.filter((answer) => !('failed' in answer) && answer.status === 202).length).toBeLessThan(
        ORDERS_IN_FLIGHT,
      );
      expectCleanAnswers(answers, service);
      await stackInfra.startServices();
      const orderIds = await retryEach(p, references);
      // An order answered before the kill is the one the retry returns.
      for (const [index, answer] of answers.entries()) {
        if (!('failed' in answer) && answer.status === 202)
          expect(orderIds.get(references[index])).toBe(answer.body.orderId);
      }
      const orders = await ordersTerminated(stand.pools, p.partner.partnerId);
      expect(orders.map((order) => order.partnerReference).sort()).toEqual([...references].sort());
      await expectOrdersWhole(stand.pools, p);
      await expectBalancesMatch(p, FUNDING_KES, orders);
      await expectLedgerReconciles(stand.pools);
      for (const order of orders) {
        await waitFor(
          () =>
            webhooksNaming(order.orderId).some((request) => JSON.parse(request.body).type === `order.${order.status}`)
              ? true
              : undefined,
          { timeoutMs: WEBHOOK_WAIT_MS, what: `the order.${order.status} webhook of ${order.orderId}` },
        );
      }
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

describe('the webhook-delivery worker killed with SIGKILL mid-delivery', () => {
  it(
    'delivers the event after the restart, with one delivery row that ends delivered',
    async () => {
      const partner = await createTestPartner();
      const http = new PartnerHttpClient(partner);
      await setWebhook(partner.partnerId);
      stand.receiver.hold(true);
      let transactionId = '';
      try {
        const credit = await http.post('/v1/sandbox/kes-credits', { amount: '9.00' });
        expect(credit.status).toBe(201);
        transactionId = credit.body.transactionId;
        await waitFor(() => (webhooksNaming(transactionId).length > 0 ? true : undefined), {
          timeoutMs: WEBHOOK_WAIT_MS,
          what: 'the held delivery',
        });
        // Every replica: with several, the held attempt may be another replica's, which would answer it.
        const replicas = loadTestStack().replicas?.['webhook-delivery']?.length ?? 1;
        for (let replica = 1; replica <= replicas; replica += 1)
          await stackInfra.killService('webhook-delivery', replica);
        await sleep(SOCKET_CLOSE_MS);
      } finally {
        stand.receiver.hold(false);
      }
      const seenBeforeRestart = webhooksNaming(transactionId).length;
      await stackInfra.startServices();
      const rows = () =>
        stand.pools.webhooks.query(
          'SELECT delivery_id, status FROM webhook_deliveries WHERE partner_id = $1 AND body LIKE $2',
          [partner.partnerId, `%${transactionId}%`],
        );
      await waitFor(async () => ((await rows()).rows.some((row) => row.status === 'delivered') ? true : undefined), {
        timeoutMs: RECLAIM_WAIT_MS,
        intervalMs: RECOVERY_POLL_MS,
        what: 'the reclaimed delivery to be delivered',
      });
      expect((await rows()).rows.map((row) => row.status)).toEqual(['delivered']);
      const received = webhooksNaming(transactionId);
      expect(received.length).toBeGreaterThan(seenBeforeRestart);
      // Every attempt is the same delivery: one event id.
      expect(new Set(received.map((request) => JSON.parse(request.body).id)).size).toBe(1);
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});
