// Proves the collection money path through the gateway against the running
// stack: open → received → crediting → credited with exact integer-cent fee
// arithmetic (several bps/flat/cap cases, the cap applying, a zero fee), the
// net landing in the partner's USD balance (listed third), amountMismatch
// reported and never refused, exactly-once crediting under repeated and
// concurrent notifications of one deposit and under concurrent different
// deposits (one contribution per collection; the rest are refunded), the
// refunded states (returned by the rails, fee that would take all of it) and
// the expired state (a deposit to it is refunded, never credited), a replica
// cut off from the ledger giving its credit back at once so that a replica
// that reaches the ledger finishes it while the cut-off one runs on (well
// within the credit's lease), and collection.received delivered exactly once to an HTTPS receiver.
// `npm test` runs `ops ledger check` after all of it.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UUID_PATTERN } from '@platform/ids';
import { createLogger } from '@platform/logger';
import { Big } from '@platform/money';
import { collections } from '@platform/proto';
import {
  createTestPartner,
  HttpsReceiver,
  PartnerHttpClient,
  ServiceInstance,
  startHttpsReceiver,
  startServiceInstance,
  TestPartner,
  waitFor,
  clientAs,
  setPartnerWebhook,
} from '@platform/testing';
import {
  CollectionView,
  configureFees,
  createCollection,
  deposit,
  readCollection,
  usdBalance,
} from './collections-support';

const WEBHOOK_WAIT_MS = 30_000;
/** After the first delivery, how long a second one would have had to show up. */
const SECOND_DELIVERY_GRACE_MS = 3_000;
/** A port in this worktree's range where nothing listens: the "ledger" of the outage replica. */
const DEAD_LEDGER_ADDRESS = '127.0.0.1:23999';
/**
 * How soon a replica that reaches the ledger credits a collection the cut-off replica gave
 * back: a few 1 s passes on a loaded machine, far below the credit's 60 s lease (what a claim
 * kept by a replica that cannot do the work would cost).
 */
const CUT_OFF_CREDIT_MS_MAX = 20_000;

/**
 * The collection once credited. A sandbox deposit runs the credit step at once, but a scheduler pass that
 * claimed the collection first credits it instead, a moment later: the deposit's answer may still say received.
 */
function untilCredited(http: PartnerHttpClient, collectionId: string): Promise<CollectionView> {
  return waitFor(
    async () => {
      const current = await readCollection(http, collectionId);
      return current.status === 'credited' ? current : undefined;
    },
    { timeoutMs: 10_000, what: 'the collection to be credited' },
  );
}

describe('collections: fees and crediting', () => {
  let partner: TestPartner;
  let http: PartnerHttpClient;

  beforeAll(async () => {
    partner = await createTestPartner();
    http = new PartnerHttpClient(partner);
  });

  it.each([
    // [bps, flat, cap, gross, fee, net]
    [100, 30, 2500, '100.00', '1.30', '98.70'],
    [100, 30, 2500, '100.01', '1.31', '98.70'], // 100.01 cents of percentage rounds up to 101
    [100, 30, 2500, '5000.00', '25.00', '4975.00'], // 50.30 capped at 25.00
    [275, 45, 100000, '1234.56', '34.41', '1200.15'], // ceil(3395.04) = 3396 + 45
    [0, 0, 0, '10.00', '0.00', '10.00'], // no fee at all: no fee posting
    [1, 0, 100, '0.02', '0.01', '0.01'], // 0.0002 cents of percentage rounds up to a whole cent
  ])('charges %i bps + %i flat capped at %i on %s: fee %s, net %s', async (bps, flat, cap, gross, fee, net) => {
    await configureFees(partner, bps as number, flat as number, cap as number);
    const before = await usdBalance(http);
    const collection = await createCollection(http);
    expect(collection.fee).toEqual({ percentBps: bps, flatMinor: flat, capMinor: cap, currency: 'USD' });
    const result = await deposit(http, collection.id, { amount: gross, senderName: 'Jane Sender' });
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({
      disposition: 'accepted',
      refundReason: null,
      amount: gross,
      currency: 'USD',
      depositId: expect.any(String),
    });
    const credited = await untilCredited(http, collection.id);
    expect(credited).toMatchObject({
      grossAmount: gross,
      feeAmount: fee,
      netAmount: net,
      senderName: 'Jane Sender',
      amountMismatch: null,
      treasuryCreditTxId: expect.stringMatching(UUID_PATTERN),
    });
    const after = await usdBalance(http);
    expect(new Big(after.available).minus(before.available).toFixed(2)).toBe(net);
  });

  it('refunds a deposit the fee would take whole, crediting nothing', async () => {
    await configureFees(partner, 100, 30, 2500);
    const before = await usdBalance(http);
    const collection = await createCollection(http);
    const result = await deposit(http, collection.id, { amount: '0.30' });
    expect(result.body).toMatchObject({ disposition: 'refunded', refundReason: 'fee_exceeds_amount' });
    expect(result.body.collection).toMatchObject({
      status: 'refunded',
      refundReason: 'fee_exceeds_amount',
      grossAmount: '0.30',
      feeAmount: null,
      netAmount: null,
    });
    expect((await usdBalance(http)).available).toBe(before.available);
  });

  it('reports an amount that differs from expectedAmount, and credits it anyway', async () => {
    await configureFees(partner, 0, 0, 0);
    const under = await createCollection(http, { expectedAmount: '100.00' });
    const exact = await createCollection(http, { expectedAmount: '100.00' });
    expect((await deposit(http, under.id, { amount: '99.00' })).body.collection).toMatchObject({
      amountMismatch: true,
      netAmount: '99.00',
    });
    expect(await untilCredited(http, under.id)).toMatchObject({ amountMismatch: true, netAmount: '99.00' });
    expect((await deposit(http, exact.id, { amount: '100' })).body.collection).toMatchObject({
      amountMismatch: false,
      grossAmount: '100.00',
    });
    expect(await untilCredited(http, exact.id)).toMatchObject({ amountMismatch: false, grossAmount: '100.00' });
  });

  it('refuses bad sandbox deposits, naming each field', async () => {
    const collection = await createCollection(http);
    for (const [body, field] of [
      [{}, 'amount'],
      [{ amount: 5 }, 'amount'],
      [{ amount: '-1.00' }, 'amount'],
      [{ amount: '1.001' }, 'amount'],
      [{ amount: '1.00', depositId: 'bad id' }, 'depositId'],
      [{ amount: '1.00', senderName: '' }, 'senderName'],
      [{ amount: '1.00', extra: 1 }, 'extra'],
    ] as const) {
      const response = await http.post(`/v1/sandbox/collections/${collection.id}/deposits`, body);
      expect({ body, status: response.status, message: response.body.message }).toEqual({
        body,
        status: 400,
        message: `Validation failed on: ${field}`,
      });
    }
    expect((await readCollection(http, collection.id)).status).toBe('open');
  });
});

describe('collections: exactly once', () => {
  let http: PartnerHttpClient;
  let partner: TestPartner;

  beforeAll(async () => {
    partner = await createTestPartner();
    http = new PartnerHttpClient(partner);
    await configureFees(partner, 100, 30, 2500);
  });

  it('credits a deposit notified again, and concurrently, exactly once', async () => {
    const collection = await createCollection(http);
    const depositId = `rails-${randomUUID()}`;
    const notifications = await Promise.all(
      [1, 2, 3, 4, 5].map(() => deposit(http, collection.id, { amount: '200.00', depositId })),
    );
    expect(notifications.map((result) => result.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const again = await deposit(http, collection.id, { amount: '200.00', depositId });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ depositId, disposition: 'accepted' });
    const credited = await waitFor(
      async () => {
        const current = await readCollection(http, collection.id);
        return current.status === 'credited' ? current : undefined;
      },
      { timeoutMs: 10_000, what: 'the collection to be credited' },
    );
    expect(credited).toMatchObject({ grossAmount: '200.00', feeAmount: '2.30', netAmount: '197.70' });
    expect((await usdBalance(http)).available).toBe('197.70');
    // The same rails id with another amount is not the same deposit.
    const reused = await deposit(http, collection.id, { amount: '1.00', depositId });
    expect(reused.status).toBe(409);
  });

  it('takes one contribution per collection: concurrent different deposits credit one, the rest are refunded', async () => {
    const before = await usdBalance(http);
    const collection = await createCollection(http);
    const results = await Promise.all([1, 2, 3, 4].map(() => deposit(http, collection.id, { amount: '50.00' })));
    expect(results.every((result) => result.status === 201)).toBe(true);
    const accepted = results.filter((result) => result.body.disposition === 'accepted');
    const refunded = results.filter((result) => result.body.disposition === 'refunded');
    expect(accepted).toHaveLength(1);
    expect(refunded.map((result) => result.body.refundReason)).toEqual([
      'collection_not_open',
      'collection_not_open',
      'collection_not_open',
    ]);
    await waitFor(async () => (await readCollection(http, collection.id)).status === 'credited', {
      timeoutMs: 10_000,
      what: 'credited',
    });
    const after = await usdBalance(http);
    expect(new Big(after.available).minus(before.available).toFixed(2)).toBe('49.20'); // 50.00 − (0.50 + 0.30)
    const late = await deposit(http, collection.id, { amount: '10.00' });
    expect(late.body).toMatchObject({ disposition: 'refunded', refundReason: 'collection_not_open' });
    expect(late.body.collection.status).toBe('credited');
  });
});

describe('collections: refunded and expired', () => {
  let http: PartnerHttpClient;

  beforeAll(async () => {
    http = new PartnerHttpClient(await createTestPartner());
  });

  it('refunds a deposit the rails return (sender name containing RETURN)', async () => {
    const collection = await createCollection(http);
    const result = await deposit(http, collection.id, { amount: '75.00', senderName: 'Please Return Co' });
    expect(result.body).toMatchObject({ disposition: 'refunded', refundReason: 'returned_by_rails' });
    expect(result.body.collection).toMatchObject({
      status: 'refunded',
      refundReason: 'returned_by_rails',
      netAmount: null,
      treasuryCreditTxId: null,
    });
    expect((await usdBalance(http)).available).toBe('0.00');
    const listed = await http.get<CollectionView[]>('/v1/collections?status=refunded');
    expect(listed.body.map((item) => item.id)).toEqual([collection.id]);
  });

  it('expires an open collection past its lifetime; a deposit to it is refunded, never credited', async () => {
    const collection = await createCollection(http);
    const expired = await http.post<CollectionView>(`/v1/sandbox/collections/${collection.id}/expire`);
    expect(expired.status).toBe(200);
    expect(expired.body.status).toBe('expired');
    const result = await deposit(http, collection.id, { amount: '40.00' });
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ disposition: 'refunded', refundReason: 'collection_expired' });
    expect(result.body.collection).toMatchObject({ status: 'expired', grossAmount: null });
    expect((await usdBalance(http)).available).toBe('0.00');
    expect((await http.get<CollectionView[]>('/v1/collections?status=expired')).body.map((item) => item.id)).toEqual([
      collection.id,
    ]);
  });
});

describe('collections: a ledger outage', () => {
  let extra: ServiceInstance | undefined;

  afterEach(async () => {
    await extra?.stop();
    extra = undefined;
  });

  it('leaves the collection crediting, and a replica that can reach the ledger credits it while the cut-off one runs on', async () => {
    const partner = await createTestPartner();
    const http = new PartnerHttpClient(partner);
    const collection = await createCollection(http);
    extra = await startServiceInstance('collections', {
      LEDGER_GRPC_ADDR: DEAD_LEDGER_ADDRESS,
      LEDGER_DEADLINE_MS: '1000',
    });
    const client = clientAs('gateway', collections.CollectionsSandboxService, {
      upstream: 'collections',
      address: `127.0.0.1:${extra.env.GRPC_PORT}`,
      logger: createLogger('collections-test', 'error'),
      deadlineMs: 15_000,
    });
    try {
      const answer = await client.simulateDeposit({
        partnerId: partner.partnerId,
        collectionId: collection.id,
        amount: '300.00',
        depositId: `rails-${randomUUID()}`,
      });
      expect(answer.collection?.status).toBe('crediting');
    } finally {
      client.close();
    }
    const answeredAtMs = Date.now();
    // The replica cut off from the ledger stays up: it gave the collection back at once and
    // claims no credit while the ledger looks unreachable, so a replica of the stack credits it
    // within a few passes, not after the credit's lease (CREDIT_LEASE_MS, 60 s).
    // Polled gently: the partner's rate limit (120 a minute) covers the reads.
    const credited = await waitFor(
      async () => {
        const current = await readCollection(http, collection.id);
        return current.status === 'credited' ? current : undefined;
      },
      { timeoutMs: CUT_OFF_CREDIT_MS_MAX, intervalMs: 500, what: 'a stack replica to credit the collection' },
    );
    const creditedAfterMs = Date.now() - answeredAtMs;
    console.log(`collections: credited ${creditedAfterMs} ms after the cut-off replica gave it back`);
    expect(creditedAfterMs).toBeLessThan(CUT_OFF_CREDIT_MS_MAX);
    expect(credited).toMatchObject({ grossAmount: '300.00', feeAmount: '3.30', netAmount: '296.70' });
    expect((await usdBalance(http)).available).toBe('296.70');
    // What the cut-off replica did: gave the credit back, and no credit step failed there.
    const log = readFileSync(extra.logFile, 'utf8');
    expect(log).toContain('ledger unavailable; collection given back for another replica');
    expect(log).not.toContain('collection credit failed; will retry');
  });
});

describe('collections: collection.received webhook', () => {
  let receiver: HttpsReceiver;

  beforeEach(async () => {
    receiver = await startHttpsReceiver();
  });

  afterEach(async () => {
    await receiver.close();
  });

  it('is delivered exactly once, with the net and the ledger entry id, once the net is in the account', async () => {
    const partner = await createTestPartner();
    const http = new PartnerHttpClient(partner);
    await setPartnerWebhook(partner.partnerId, receiver.url);
    const collection = await createCollection(http);
    const depositId = `rails-${randomUUID()}`;
    await Promise.all(
      [1, 2, 3].map(() => deposit(http, collection.id, { amount: '1000.00', senderName: 'Big Sender LLC', depositId })),
    );
    await deposit(http, collection.id, { amount: '5.00' });
    const [request] = await receiver.waitForRequests(1, WEBHOOK_WAIT_MS);
    if (!request) throw new Error('no webhook received');
    const event = JSON.parse(request.body) as { type: string; data: Record<string, unknown> };
    expect(event.type).toBe('collection.received');
    const credited = await readCollection(http, collection.id);
    expect(event.data).toEqual({
      collectionId: collection.id,
      reference: collection.reference,
      gross: '1000.00',
      fee: '10.30',
      net: '989.70',
      currency: 'USD',
      senderName: 'Big Sender LLC',
      treasuryCreditTxId: credited.treasuryCreditTxId,
    });
    expect(credited.status).toBe('credited');
    expect((await usdBalance(http)).available).toBe('989.70');
    await new Promise((resolve) => setTimeout(resolve, SECOND_DELIVERY_GRACE_MS));
    expect(receiver.requests).toHaveLength(1);
  });
});
