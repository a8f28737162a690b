// Proves GET /v1/usdt/sends, GET /v1/transfers/batch and GET
// /v1/funding/mobile-money-push on the test stack: each lists only the
// partner's own resources, newest first, each as its single read shows it;
// pages neither shift nor repeat while new ones are created between them; the
// status, partnerReference, idempotencyKey and [from, to) filters where the
// resource has them; another partner sees none; every bad parameter is
// refused with its name.
import { randomBytes, randomUUID } from 'node:crypto';
import { HttpResult, PartnerHttpClient, partnerWallet, waitFor } from '@platform/testing';
import { latestCode, payoutsPartner, PayoutsPartner, transferBody } from './support';

const SENDS = 3;
const BATCHES = 3;
const PUSHES = 3;
/** A USDT deposit held because trading missed the ledger's offer is credited after 60 s; plus a margin. */
const USDT_CREDIT_WAIT_MS = 75_000;
const SETUP_TIMEOUT_MS = 120_000;

function ids(result: HttpResult, idField = 'id'): string[] {
  expect(result.status).toBe(200);
  return (result.body as Record<string, string>[]).map((item) => item[idField]!);
}

/** Pages through `path` with `limit`, creating one more resource after the first page; answers the ids seen and the new one's. */
async function pageWithInsert(
  http: PartnerHttpClient,
  path: string,
  limit: number,
  create: () => Promise<string>,
  idField = 'id',
) {
  const first = await http.get(`${path}?limit=${limit}`);
  const seen = ids(first, idField);
  const inserted = await create();
  let cursor = first.headers.get('x-next-cursor');
  while (cursor) {
    const next = await http.get(`${path}?limit=${limit}&cursor=${cursor}`);
    seen.push(...ids(next, idField));
    cursor = next.headers.get('x-next-cursor');
  }
  return { seen, inserted };
}

const REFUSALS: Array<[string, string]> = [
  ['limit=0', 'limit'],
  ['limit=101', 'limit'],
  ['limit=ten', 'limit'],
  ['from=2026-02-30', 'from'],
  ['to=yesterday', 'to'],
  ['cursor=not-a-cursor', 'cursor'],
  ['cursor=%2F%2F', 'cursor'],
  ['status=creating', 'status'],
  ['colour=blue', 'colour'],
  ['limit=1&limit=2', 'limit'],
];

async function expectRefused(http: PartnerHttpClient, path: string, query: string, name: string): Promise<void> {
  const refused = await http.get(`${path}?${query}`);
  expect(refused.status).toBe(400);
  expect(refused.body.message).toBe(`Validation failed on: ${name}`);
}

describe('partner lists', () => {
  let p: PayoutsPartner;
  let other: PayoutsPartner;
  let walletId: string;
  // Oldest first.
  const sends: { id: string; idempotencyKey: string; partnerReference: string }[] = [];
  const batches: { id: string; idempotencyKey: string }[] = [];
  const pushes: string[] = [];

  const sendBody = (partnerReference: string) => ({
    destinationWalletId: walletId,
    usdtAmount: '1.000000',
    idempotencyKey: `send-${randomUUID()}`,
    partnerReference,
  });
  const batchBody = () => ({
    idempotencyKey: `batch-${randomUUID()}`,
    items: [transferBody({ amount: { currency: 'KES', value: '10.00' } })],
  });

  beforeAll(async () => {
    [p, other] = await Promise.all([payoutsPartner({ fundKes: '100000.00' }), payoutsPartner({ withAdmin: false })]);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await p.receiver.close();
    await other.receiver.close();
  });

  /** Confirms a send or batch at once: its code lives 10 s on the test stack. */
  async function confirmNow(subject: { id: string; confirmation: { id: string } }): Promise<void> {
    expect(
      (
        await p.http.post(`/v1/confirmations/${subject.confirmation.id}`, {
          code: await latestCode(p.http, subject.id),
        })
      ).status,
    ).toBe(200);
  }

  describe('GET /v1/usdt/sends', () => {
    beforeAll(async () => {
      const deposit = await p.http.post('/v1/sandbox/usdt-deposits', {
        txHash: randomBytes(32).toString('hex'),
        usdtAmount: '100.000000',
      });
      expect(deposit.status).toBe(201);
      expect((await p.http.post('/v1/sandbox/rates', { bid: '128.0000', ask: '130.0000' })).status).toBe(200);
      // A loaded trading may miss the ledger's deposit offer; the deposit is then credited after 60 s.
      await waitFor(
        async () =>
          ((await p.http.get('/v1/balances')).body as Array<{ currency: string; available: string }>).some(
            (balance) => balance.currency === 'USDT' && balance.available === '100.000000',
          ) || undefined,
        { timeoutMs: USDT_CREDIT_WAIT_MS, what: 'the USDT deposit credited' },
      );
      walletId = await partnerWallet(p.http);
      for (let index = 0; index < SENDS; index += 1) {
        const body = sendBody(`send-ref-${index}`);
        const answer = await p.http.post('/v1/usdt/sends', body);
        expect(answer.status).toBe(202);
        sends.push({
          id: answer.body.id,
          idempotencyKey: body.idempotencyKey,
          partnerReference: body.partnerReference,
        });
        if (index === 1) await confirmNow(answer.body);
      }
    }, SETUP_TIMEOUT_MS);

    it("lists the partner's sends newest first, each as GET /v1/usdt/sends/{id} shows it", async () => {
      const page = await p.http.get('/v1/usdt/sends');
      expect(ids(page)).toEqual(sends.map((send) => send.id).reverse());
      expect(page.headers.get('x-next-cursor')).toBeNull();
      const single = await p.http.get(`/v1/usdt/sends/${sends[0]!.id}`);
      expect(page.body.find((send: { id: string }) => send.id === sends[0]!.id)).toEqual(single.body);
    });

    it('pages by cursor, and a send created meanwhile never shifts or repeats a page', async () => {
      const { seen, inserted } = await pageWithInsert(p.http, '/v1/usdt/sends', 2, async () => {
        const answer = await p.http.post('/v1/usdt/sends', sendBody('during-paging'));
        expect(answer.status).toBe(202);
        return answer.body.id as string;
      });
      expect(seen).toEqual(sends.map((send) => send.id).reverse());
      expect(ids(await p.http.get('/v1/usdt/sends?limit=1'))).toEqual([inserted]);
    });

    it('filters by status, partnerReference, idempotencyKey and creation time', async () => {
      const confirmed = sends[1]!;
      await waitFor(
        async () => (await p.http.get(`/v1/usdt/sends/${confirmed.id}`)).body.status === 'settled' || undefined,
        { what: 'the send settled' },
      );
      expect(ids(await p.http.get('/v1/usdt/sends?status=settled'))).toEqual([confirmed.id]);
      expect(ids(await p.http.get('/v1/usdt/sends?partnerReference=send-ref-2'))).toEqual([sends[2]!.id]);
      expect(ids(await p.http.get(`/v1/usdt/sends?idempotencyKey=${sends[0]!.idempotencyKey}`))).toEqual([
        sends[0]!.id,
      ]);
      const createdAt = (await p.http.get(`/v1/usdt/sends/${sends[1]!.id}`)).body.createdAt as string;
      expect(ids(await p.http.get(`/v1/usdt/sends?to=${encodeURIComponent(createdAt)}`))).toEqual([sends[0]!.id]);
      expect(
        ids(await p.http.get(`/v1/usdt/sends?from=${encodeURIComponent(createdAt)}&partnerReference=send-ref-1`)),
      ).toEqual([sends[1]!.id]);
      expect(ids(await p.http.get('/v1/usdt/sends?from=2000-01-01&to=2000-01-02'))).toEqual([]);
    });

    it('shows another partner none of them', async () => {
      expect(ids(await other.http.get('/v1/usdt/sends'))).toEqual([]);
      expect(ids(await other.http.get(`/v1/usdt/sends?idempotencyKey=${sends[0]!.idempotencyKey}`))).toEqual([]);
    });

    it.each([
      ...REFUSALS,
      [`idempotencyKey=${'k'.repeat(129)}`, 'idempotencyKey'],
      ['partnerReference=', 'partnerReference'],
    ])('refuses %s, naming it', async (query, name) => expectRefused(p.http, '/v1/usdt/sends', query, name));
  });

  describe('GET /v1/transfers/batch', () => {
    beforeAll(async () => {
      for (let index = 0; index < BATCHES; index += 1) {
        const body = batchBody();
        const answer = await p.http.post('/v1/transfers/batch', body);
        expect(answer.status).toBe(202);
        batches.push({ id: answer.body.id, idempotencyKey: body.idempotencyKey });
        if (index === 1) await confirmNow(answer.body);
      }
    }, SETUP_TIMEOUT_MS);

    it("lists the partner's batches newest first, each as GET /v1/transfers/batch/{id} shows it", async () => {
      const page = await p.http.get('/v1/transfers/batch');
      expect(ids(page)).toEqual(batches.map((batch) => batch.id).reverse());
      const single = await p.http.get(`/v1/transfers/batch/${batches[0]!.id}`);
      expect(page.body.find((batch: { id: string }) => batch.id === batches[0]!.id)).toEqual(single.body);
    });

    it('pages by cursor, and a batch created meanwhile never shifts or repeats a page', async () => {
      const { seen, inserted } = await pageWithInsert(p.http, '/v1/transfers/batch', 2, async () => {
        const answer = await p.http.post('/v1/transfers/batch', batchBody());
        expect(answer.status).toBe(202);
        return answer.body.id as string;
      });
      expect(seen).toEqual(batches.map((batch) => batch.id).reverse());
      expect(ids(await p.http.get('/v1/transfers/batch?limit=1'))).toEqual([inserted]);
    });

    it('filters by its derived status, idempotencyKey and creation time', async () => {
      const completed = batches[1]!;
      await waitFor(
        async () => (await p.http.get(`/v1/transfers/batch/${completed.id}`)).body.status === 'completed' || undefined,
        { what: 'the batch completed' },
      );
      expect(ids(await p.http.get('/v1/transfers/batch?status=completed'))).toEqual([completed.id]);
      // The others wait for their code, or have let it lapse (10 s on the test stack): each is in exactly one of the two.
      const waiting = ids(await p.http.get('/v1/transfers/batch?status=awaiting_confirmation'));
      const expired = ids(await p.http.get('/v1/transfers/batch?status=expired'));
      expect(waiting).not.toContain(completed.id);
      expect([...waiting, ...expired]).toEqual(expect.arrayContaining([batches[0]!.id, batches[2]!.id]));
      expect(waiting.filter((id) => expired.includes(id))).toEqual([]);
      expect(ids(await p.http.get(`/v1/transfers/batch?idempotencyKey=${batches[2]!.idempotencyKey}`))).toEqual([
        batches[2]!.id,
      ]);
      const createdAt = (await p.http.get(`/v1/transfers/batch/${batches[1]!.id}`)).body.createdAt as string;
      expect(ids(await p.http.get(`/v1/transfers/batch?to=${encodeURIComponent(createdAt)}`))).toEqual([
        batches[0]!.id,
      ]);
      expect(ids(await p.http.get('/v1/transfers/batch?from=2000-01-01&to=2000-01-02'))).toEqual([]);
    });

    it('shows another partner none of them', async () => {
      expect(ids(await other.http.get('/v1/transfers/batch'))).toEqual([]);
      expect(ids(await other.http.get(`/v1/transfers/batch?idempotencyKey=${batches[0]!.idempotencyKey}`))).toEqual([]);
    });

    it.each([...REFUSALS, ['status=settled', 'status'], ['partnerReference=x', 'partnerReference']])(
      'refuses %s, naming it',
      async (query, name) => expectRefused(p.http, '/v1/transfers/batch', query, name),
    );
  });

  describe('GET /v1/funding/mobile-money-push', () => {
    beforeAll(async () => {
      for (let index = 0; index < PUSHES; index += 1) {
        const answer = await p.http.post('/v1/funding/mobile-money-push', {
          phone: '0712345678',
          amount: `${10 + index}.00`,
        });
        expect(answer.status).toBe(202);
        pushes.push(answer.body.pushId);
        // Answered at once: an unanswered prompt lapses after 6 s on the test stack.
        if (index === 1)
          expect((await p.http.post(`/v1/sandbox/mobile-money-pushes/${answer.body.pushId}/decline`)).body.status).toBe(
            'declined',
          );
      }
    }, SETUP_TIMEOUT_MS);

    it("lists the partner's prompts newest first, the payer's number masked", async () => {
      const page = await p.http.get('/v1/funding/mobile-money-push');
      expect(ids(page, 'pushId')).toEqual([...pushes].reverse());
      expect(page.body[PUSHES - 1]).toMatchObject({
        pushId: pushes[0],
        amount: { currency: 'KES', value: '10.00' },
        phone: '****5678',
        answeredAt: null,
        creditTransactionId: null,
      });
      expect(JSON.stringify(page.body)).not.toContain('712345678');
    });

    it('pages by cursor, and a prompt made meanwhile never shifts or repeats a page', async () => {
      const { seen, inserted } = await pageWithInsert(
        p.http,
        '/v1/funding/mobile-money-push',
        2,
        async () => {
          const answer = await p.http.post('/v1/funding/mobile-money-push', { phone: '0712345678', amount: '99.00' });
          expect(answer.status).toBe(202);
          return answer.body.pushId as string;
        },
        'pushId',
      );
      expect(seen).toEqual([...pushes].reverse());
      expect(ids(await p.http.get('/v1/funding/mobile-money-push?limit=1'), 'pushId')).toEqual([inserted]);
    });

    it('filters by status and creation time', async () => {
      expect(ids(await p.http.get('/v1/funding/mobile-money-push?status=declined'), 'pushId')).toEqual([pushes[1]]);
      const all = await p.http.get('/v1/funding/mobile-money-push');
      const createdAt = all.body.find((push: { pushId: string }) => push.pushId === pushes[1]).createdAt as string;
      expect(
        ids(await p.http.get(`/v1/funding/mobile-money-push?to=${encodeURIComponent(createdAt)}`), 'pushId'),
      ).toEqual([pushes[0]]);
      expect(ids(await p.http.get('/v1/funding/mobile-money-push?from=2000-01-01&to=2000-01-02'), 'pushId')).toEqual(
        [],
      );
    });

    it('shows another partner none of them', async () => {
      expect(ids(await other.http.get('/v1/funding/mobile-money-push'), 'pushId')).toEqual([]);
    });

    it.each([...REFUSALS, ['status=settled', 'status'], ['idempotencyKey=k', 'idempotencyKey']])(
      'refuses %s, naming it',
      async (query, name) => expectRefused(p.http, '/v1/funding/mobile-money-push', query, name),
    );
  });
});
