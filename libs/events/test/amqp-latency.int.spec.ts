// Proves the AMQP connection sends every write at once (TCP_NODELAY), against the test
// stack's RabbitMQ: a persistent message of 3 KB (over amqplib's 2 KiB single-write
// threshold, so written as two writes) is confirmed without waiting for a delayed ACK.
// With Nagle's algorithm on, every such publish waits for the broker's delayed ACK of
// the first write (40 ms or more on Linux, every time), so even the fastest of a few
// confirms would take that long; load on the machine only ever adds to a wait, so the
// fastest one stays well below it only when nothing holds the second write back.
import { createLogger } from '@platform/logger';
import { loadTestStack } from '@platform/testing';
import { AmqpConnection } from '../src/amqp';

const logger = createLogger('amqp-latency-spec', 'error');
const MESSAGE_BYTES = 3_000;
const PUBLISHES = 12;
/** Linux's minimum delayed ACK is 40 ms; a publish held by Nagle never confirms faster. */
const DELAYED_ACK_FLOOR_MS = 40;

let connection: AmqpConnection;

beforeAll(() => {
  connection = new AmqpConnection(loadTestStack().amqpUrl, logger);
});

afterAll(async () => {
  await connection?.close();
});

it('confirms a message over 2 KiB without waiting for a delayed ACK', async () => {
  const channel = await connection.createConfirmChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true, durable: false });
  const confirmMs: number[] = [];
  for (let index = 0; index < PUBLISHES; index += 1) {
    const startedAt = process.hrtime.bigint();
    channel.sendToQueue(queue, Buffer.alloc(MESSAGE_BYTES, 'x'), { persistent: true });
    await channel.waitForConfirms();
    confirmMs.push(Number(process.hrtime.bigint() - startedAt) / 1e6);
  }
  await channel.close();
  expect(Math.min(...confirmMs)).toBeLessThan(DELAYED_ACK_FLOOR_MS / 2);
});
