// Proves one partner request's trace crosses the platform, on the running test
// stack, when the partner sends a W3C traceparent of its own:
// - a sandbox KES credit: the gateway's access line names the partner's trace;
//   the ledger logs the credit it recorded in that trace (ids, amount and
//   currency, no account of the partner's) and writes its credit.received event
//   with that trace (the outbox row's traceparent); webhook-delivery logs the
//   delivery in that trace; and the webhook request the partner's receiver gets
//   carries a traceparent of that trace;
// - a KES transfer: the gateway, payouts (which holds it for confirmation), the
//   ledger (which places the hold) and the notifier (which sends the code) each
//   log a line in the partner's trace, with a span id of its own;
// - a request without a traceparent, or with a malformed one, runs in a new trace
//   the partner's value does not name.
// Log lines are read from the stack's service logs, as they are written.
import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import {
  createTestPartner,
  HttpsReceiver,
  PartnerHttpClient,
  readServiceLogs,
  stackDatabaseUrl,
  startHttpsReceiver,
  waitFor,
  setPartnerWebhook,
} from '@platform/testing';

const LOG_WAIT_MS = 20_000;
const WEBHOOK_WAIT_MS = 30_000;

type LogLine = Record<string, unknown>;

const newTraceId = () => randomBytes(16).toString('hex');
const traceparentOf = (traceId: string) => `00-${traceId}-${randomBytes(8).toString('hex')}-01`;

/** Every replica's log of `service`: the balancer may pick any. */
function logLines(service: string): LogLine[] {
  const text = readServiceLogs(service);
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

/** The first line of `service` in `traceId` that `accept` takes, once it is written. */
function lineInTrace(
  service: string,
  traceId: string,
  accept: (line: LogLine) => boolean = () => true,
): Promise<LogLine> {
  return waitFor(async () => logLines(service).find((line) => line.traceId === traceId && accept(line)), {
    timeoutMs: LOG_WAIT_MS,
    intervalMs: 250,
    what: `a ${service} log line in trace ${traceId}`,
  });
}

describe("one partner request's trace across the platform", () => {
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
  });

  afterAll(async () => {
    await receiver.close();
  });

  it("follows a sandbox KES credit from the gateway through the ledger's event to the webhook the partner receives", async () => {
    const partner = await createTestPartner();
    await setPartnerWebhook(partner.partnerId, receiver.url);
    const traceId = newTraceId();
    const credit = await new PartnerHttpClient(partner).request(
      'POST',
      '/v1/sandbox/kes-credits',
      { amount: '100.00' },
      { headers: { traceparent: traceparentOf(traceId) } },
    );
    expect(credit.status).toBe(201);
    const requestId = credit.headers.get('x-request-id');

    const access = await lineInTrace('gateway', traceId, (line) => line.message === 'request served');
    expect(access).toMatchObject({
      requestId,
      path: '/v1/sandbox/kes-credits',
      status: 201,
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const recorded = await lineInTrace('ledger', traceId, (line) => line.message === 'KES credit recorded');
    expect(recorded).toMatchObject({
      partnerId: partner.partnerId,
      matched: true,
      amount: '100.00',
      currency: 'KES',
      transactionId: credit.body.transactionId,
    });
    expect(recorded.spanId).not.toBe(access.spanId);

    const webhook = await waitFor(
      async () => receiver.requests.find((request) => String(request.headers.traceparent ?? '').includes(traceId)),
      {
        timeoutMs: WEBHOOK_WAIT_MS,
        intervalMs: 250,
        what: `a webhook in trace ${traceId}`,
      },
    );
    const eventId = (JSON.parse(webhook.body) as { id: string }).id;
    expect(String(webhook.headers.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));

    const pool = new Pool({ connectionString: stackDatabaseUrl('svc_ledger'), max: 1 });
    try {
      const { rows } = await pool.query('SELECT traceparent FROM outbox WHERE id = $1', [eventId]);
      expect(rows[0]?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));
    } finally {
      await pool.end();
    }
    const delivered = await lineInTrace('webhook-delivery', traceId, (line) => line.message === 'webhook delivered');
    expect(delivered).toMatchObject({ eventId, partnerId: partner.partnerId });
  });

  it('follows a KES transfer through the gateway, payouts and the notifier, each in a span of its own', async () => {
    const domain = `t${randomUUID().slice(0, 8)}.example.com`;
    const partner = await createTestPartner({ adminDomain: domain });
    const http = new PartnerHttpClient(partner);
    expect((await http.post('/v1/admins', { email: `treasurer@${domain}`, name: 'Treasurer' })).status).toBe(201);
    expect((await http.post('/v1/sandbox/kes-credits', { amount: '1000.00' })).status).toBe(201);
    const traceId = newTraceId();
    const transfer = await http.request(
      'POST',
      '/v1/transfers',
      {
        rail: 'mobile_money',
        destination: { accountNumber: '254712345678', accountName: 'Jane Wanjiru' },
        amount: { currency: 'KES', value: '100.00' },
        idempotencyKey: `key-${randomUUID()}`,
      },
      { headers: { traceparent: traceparentOf(traceId) } },
    );
    expect(transfer.status).toBe(202);

    const lines = [
      await lineInTrace('gateway', traceId, (line) => line.message === 'request served'),
      await lineInTrace(
        'payouts',
        traceId,
        (line) => line.message === 'transfer awaiting confirmation' && line.transferId === transfer.body.id,
      ),
      // The transfer's hold has the transfer's id.
      await lineInTrace(
        'ledger',
        traceId,
        (line) => line.message === 'hold placed' && line.holdId === transfer.body.id,
      ),
      await lineInTrace('notifier', traceId, (line) => line.message === 'message sent'),
    ];
    for (const line of lines) expect(line.requestId).toBe(transfer.headers.get('x-request-id'));
    expect(lines[2]).toMatchObject({ currency: 'KES', amount: expect.stringMatching(/^\d+\.\d{2}$/) });
    expect(new Set(lines.map((line) => line.spanId)).size).toBe(4);
  });

  it('starts a new trace for a request without a traceparent or with a malformed one', async () => {
    const http = new PartnerHttpClient(await createTestPartner());
    const traceId = newTraceId();
    const sent: Array<Record<string, string>> = [{}, { traceparent: `00-${traceId}-not-a-span-id-01` }];
    for (const headers of sent) {
      const answer = await http.request('GET', '/v1/balances', undefined, { headers });
      expect(answer.status).toBe(200);
      const requestId = answer.headers.get('x-request-id');
      const access = await waitFor(
        async () =>
          logLines('gateway').find((line) => line.requestId === requestId && line.message === 'request served'),
        {
          timeoutMs: LOG_WAIT_MS,
          intervalMs: 250,
          what: `the access line of ${requestId}`,
        },
      );
      expect(access.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(access.traceId).not.toBe(traceId);
    }
  });
});
