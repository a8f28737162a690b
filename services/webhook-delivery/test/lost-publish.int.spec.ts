// Proves that an event whose first publish was lost is delivered late rather than
// never. A producer's outbox (in a scratch database) is relayed by the
// real OutboxRelay through a TCP proxy in front of the stack's RabbitMQ. While the
// proxy refuses connections (the broker is down for the producer) the event stays
// unpublished and the relay's lag grows; once the broker is back, the same relay
// loop publishes it and the partner's endpoint receives it. Other tests keep the
// real broker, so stopping it for this one would break them.
import { createServer, connect, Server, Socket } from 'node:net';
import { AddressInfo } from 'node:net';
import {
  AmqpConnection,
  enqueueEvent,
  OUTBOX_TABLE_V1_SQL,
  OUTBOX_TRACEPARENT_V2_SQL,
  OutboxRelay,
} from '@platform/events';
import { createLogger } from '@platform/logger';
import { createDataSource, DataSource } from '@platform/persistence';
import {
  createScratchDatabase,
  createTestPartner,
  loadTestStack,
  ScratchDatabase,
  startHttpsReceiver,
  waitFor,
} from '@platform/testing';
import { deliveryIdOf, setWebhook, waitForDelivery } from './webhook-test-support';

const DOWN_FOR_MS = 3_000;
const WAIT_MS = 30_000;

/** A TCP proxy to the broker that can be switched off (every connection refused and cut). */
async function startBrokerProxy(brokerPort: number) {
  let up = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    const upstream = connect(brokerPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    setUp(on: boolean) {
      up = on;
      if (!on) sockets.forEach((socket) => socket.destroy());
    },
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}

describe('an event whose first publish was lost', () => {
  let scratch: ScratchDatabase;
  let producer: DataSource;

  beforeAll(async () => {
    scratch = await createScratchDatabase('outbox_lost');
    producer = await createDataSource({ url: scratch.url, applicationName: 'lost-publish-spec' }).initialize();
    await producer.query(OUTBOX_TABLE_V1_SQL);
    await producer.query(OUTBOX_TRACEPARENT_V2_SQL);
  });

  afterAll(async () => {
    await producer?.destroy();
    await scratch?.drop();
  });

  it('stays in the outbox while the broker is down and is delivered after it returns', async () => {
    const partner = await createTestPartner();
    const receiver = await startHttpsReceiver();
    const brokerUrl = new URL(loadTestStack().amqpUrl);
    const proxy = await startBrokerProxy(Number(brokerUrl.port));
    brokerUrl.port = String(proxy.port);
    const logger = createLogger('lost-publish-spec', 'error');
    const amqp = new AmqpConnection(brokerUrl.toString(), logger);
    const relay = new OutboxRelay(producer, amqp, logger, {
      pollIntervalMs: 100,
      confirmTimeoutMs: 1_000,
      lagAlertMs: 500,
      lagCheckIntervalMs: 200,
    });
    try {
      await setWebhook(partner, receiver.url);
      const event = await producer.transaction((manager) =>
        enqueueEvent(manager, {
          partnerId: partner.partnerId,
          type: 'credit.received',
          data: { transactionId: 'lost-publish', reference: 'LOST1' },
        }),
      );
      relay.start();
      await new Promise((resolve) => setTimeout(resolve, DOWN_FOR_MS));
      const lag = await relay.measureLag();
      expect(lag.unpublished).toBe(1);
      expect(lag.oldestAgeMs).toBeGreaterThanOrEqual(DOWN_FOR_MS - 500);
      expect(receiver.requests).toHaveLength(0);

      proxy.setUp(true);
      const [request] = await receiver.waitForRequests(1, WAIT_MS);
      expect(JSON.parse(request!.body)).toMatchObject({
        id: event.id,
        type: 'credit.received',
        createdAt: event.createdAt,
      });
      await waitFor(async () => (await relay.measureLag()).unpublished === 0, {
        timeoutMs: WAIT_MS,
        what: 'the outbox row to be marked published',
      });
      await waitForDelivery(
        partner.partnerId,
        (d) => d.deliveryId === deliveryIdOf(request!) && d.status === 'delivered',
        'the late event to be delivered',
        WAIT_MS,
      );
    } finally {
      await relay.stop();
      await amqp.close();
      await proxy.close();
      await receiver.close();
    }
  }, 90_000);
});
