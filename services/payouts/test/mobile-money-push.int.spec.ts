// Proves the mobile-money funding prompt end to end through the gateway on the
// test stack: a prompt answers 202 pending for every accepted phone format; the
// payer's approval credits the partner's own KES account once (also when
// approved again or concurrently) and fires exactly one credit.received; a
// decline, a lapsed prompt and a second answer move nothing; two calls are two
// prompts; every refusal (bad phone or amount, the sandbox bank's rejection and
// unavailability magic, a KES account not ready, a foreign or unknown push).
import { randomUUID } from 'node:crypto';
import { UUID_PATTERN } from '@platform/ids';
import { Big } from '@platform/money';
import {
  createTestPartner,
  HttpsReceiver,
  PartnerHttpClient,
  runOps,
  setPartnerWebhook,
  startHttpsReceiver,
  TestPartner,
  waitFor,
} from '@platform/testing';

/** The test stack runs SANDBOX_TIME_SCALE 0.05: the default 120 s lifetime is 6 s. */
const PUSH_LIFETIME_MS = 6_000;
const LIFETIME_SLACK_MS = 1_500;
/** How long to watch for an event that must not come. */
const QUIET_MS = 2_000;
const PUSH = '/v1/funding/mobile-money-push';

interface Harness {
  partner: TestPartner;
  http: PartnerHttpClient;
  receiver: HttpsReceiver;
}

async function newHarness(): Promise<Harness> {
  const partner = await createTestPartner();
  const receiver = await startHttpsReceiver();
  await setPartnerWebhook(partner.partnerId, receiver.url);
  return { partner, http: new PartnerHttpClient(partner), receiver };
}

function creditEvents(receiver: HttpsReceiver): Array<{ type: string; data: Record<string, any> }> {
  return receiver.requests
    .map((request) => JSON.parse(request.body))
    .filter((event) => event.type === 'credit.received');
}

async function kesAvailable(http: PartnerHttpClient): Promise<string> {
  const response = await http.get('/v1/balances');
  expect(response.status).toBe(200);
  return response.body.find((balance: { currency: string }) => balance.currency === 'KES').available;
}

async function push(http: PartnerHttpClient, phone: string, amount: string) {
  return http.post(PUSH, { phone, amount });
}

async function sent(http: PartnerHttpClient, phone = '0712345678', amount = '150.00'): Promise<string> {
  const response = await push(http, phone, amount);
  expect(response.status).toBe(202);
  expect(response.body).toEqual({ pushId: expect.stringMatching(UUID_PATTERN), status: 'pending' });
  return response.body.pushId;
}

function expectRefusal(response: { status: number; body: any }, status: number, message: string): void {
  expect({ status: response.status, message: response.body.message }).toEqual({ status, message });
}

describe('mobile-money funding prompt', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await newHarness();
  });

  afterAll(async () => h.receiver.close());

  it('approval credits the partner once, with one credit.received, however often it is approved', async () => {
    const before = await kesAvailable(h.http);
    const pushId = await sent(h.http, '+254712345678', '250.50');

    const answers = await Promise.all(
      [1, 2, 3].map(() => h.http.post(`/v1/sandbox/mobile-money-pushes/${pushId}/approve`)),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    const credited = await waitFor(
      async () => {
        const again = await h.http.post(`/v1/sandbox/mobile-money-pushes/${pushId}/approve`);
        return again.body.status === 'credited' ? again.body : undefined;
      },
      { what: 'the push to be credited' },
    );
    expect(credited).toMatchObject({
      pushId,
      status: 'credited',
      amount: { currency: 'KES', value: '250.50' },
      creditTransactionId: expect.stringMatching(UUID_PATTERN),
    });
    expect(new Big(await kesAvailable(h.http)).minus(before).toFixed(2)).toBe('250.50');

    const event = await waitFor(
      () => creditEvents(h.receiver).find((item) => item.data.transactionId === credited.creditTransactionId),
      { what: 'credit.received' },
    );
    expect(event.data).toEqual({
      transactionId: credited.creditTransactionId,
      accountId: h.partner.kesAccountId,
      amount: { currency: 'KES', value: '250.50' },
      rail: 'mobile_money_push',
      reference: expect.stringMatching(/^[A-Z0-9]{10}$/),
      receivedAt: expect.any(String),
    });
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(
      creditEvents(h.receiver).filter((item) => item.data.transactionId === credited.creditTransactionId),
    ).toHaveLength(1);

    const declineAfter = await h.http.post(`/v1/sandbox/mobile-money-pushes/${pushId}/decline`);
    expect(declineAfter.status).toBe(200);
    expect(declineAfter.body.status).toBe('credited');
  });

  it('accepts every Kenyan phone format; two calls are two prompts', async () => {
    const ids = [];
    for (const phone of ['0712345678', '0112345678', '254712345678', '254112345678', '+254712345678', '+254112345678'])
      ids.push(await sent(h.http, phone));
    ids.push(await sent(h.http, '0712345678'));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a declined prompt moves nothing and fires nothing; the first answer stands', async () => {
    const before = await kesAvailable(h.http);
    const eventsBefore = creditEvents(h.receiver).length;
    const pushId = await sent(h.http);
    const declined = await h.http.post(`/v1/sandbox/mobile-money-pushes/${pushId}/decline`);
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ pushId, status: 'declined', creditTransactionId: null });
    const approvedAfter = await h.http.post(`/v1/sandbox/mobile-money-pushes/${pushId}/approve`);
    expect(approvedAfter.status).toBe(200);
    expect(approvedAfter.body.status).toBe('declined');
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(await kesAvailable(h.http)).toBe(before);
    expect(creditEvents(h.receiver)).toHaveLength(eventsBefore);
  });

  it('an ignored prompt expires: a late approval credits nothing', async () => {
    const before = await kesAvailable(h.http);
    const pushId = await sent(h.http);
    await new Promise((resolve) => setTimeout(resolve, PUSH_LIFETIME_MS + LIFETIME_SLACK_MS));
    const late = await h.http.post(`/v1/sandbox/mobile-money-pushes/${pushId}/approve`);
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ pushId, status: 'expired', creditTransactionId: null });
    expect(await kesAvailable(h.http)).toBe(before);
  });

  it.each([
    [{ phone: '0812345678', amount: '10.00' }, 'phone'],
    [{ phone: '712345678', amount: '10.00' }, 'phone'],
    [{ phone: '0712 345 678', amount: '10.00' }, 'phone'],
    [{ phone: 712345678, amount: '10.00' }, 'phone'],
    [{ phone: '0712345678', amount: '0.99' }, 'amount'],
    [{ phone: '0712345678', amount: '250000.01' }, 'amount'],
    [{ phone: '0712345678', amount: '10.001' }, 'amount'],
    [{ phone: '0712345678', amount: 10 }, 'amount'],
    [{ phone: '0712345678' }, 'amount'],
    [{ phone: '0712345678', amount: '10.00', idempotencyKey: 'x' }, 'idempotencyKey'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await h.http.post(PUSH, body);
    expectRefusal(response, 400, `Validation failed on: ${field}`);
  });

  it('the bank declining the number is 422 MOBILE_MONEY_PUSH_REJECTED; no answer is 503 MOBILE_MONEY_PUSH_UNAVAILABLE', async () => {
    expectRefusal(await push(h.http, '0712345000', '10.00'), 422, 'MOBILE_MONEY_PUSH_REJECTED');
    expectRefusal(await push(h.http, '+254712345999', '10.00'), 503, 'MOBILE_MONEY_PUSH_UNAVAILABLE');
  });

  it('refuses while the KES account is not ready, naming its state', async () => {
    const other = await createTestPartner();
    const http = new PartnerHttpClient(other);
    for (const [status, code] of [
      ['not_allocated', 'PARTNER_VA_NOT_ALLOCATED'],
      ['activating', 'PARTNER_VA_ACTIVATING'],
      ['suspended', 'PARTNER_VA_SUSPENDED'],
    ]) {
      await runOps(['kes-account', 'set-status', '--partner', other.partnerId, '--status', status]);
      expectRefusal(await push(http, '0712345678', '10.00'), 503, code);
    }
  });

  it("answers 404 for an unknown, malformed or another partner's push", async () => {
    // The stranger first: creating a partner can outlast the push's scaled lifetime on a loaded machine.
    const stranger = new PartnerHttpClient(await createTestPartner());
    const pushId = await sent(h.http);
    for (const path of [
      `/v1/sandbox/mobile-money-pushes/${pushId}/approve`,
      `/v1/sandbox/mobile-money-pushes/${pushId}/decline`,
    ]) {
      expectRefusal(await stranger.post(path), 404, 'MOBILE_MONEY_PUSH_NOT_FOUND');
    }
    expectRefusal(
      await h.http.post(`/v1/sandbox/mobile-money-pushes/${randomUUID()}/approve`),
      404,
      'MOBILE_MONEY_PUSH_NOT_FOUND',
    );
    expectRefusal(
      await h.http.post('/v1/sandbox/mobile-money-pushes/not-a-uuid/approve'),
      404,
      'MOBILE_MONEY_PUSH_NOT_FOUND',
    );
    const mine = await h.http.post(`/v1/sandbox/mobile-money-pushes/${pushId}/decline`);
    expect(mine.body.status).toBe('declined');
  });
});
