// Proves GET /v1/transfers: the partner's own transfers newest first, each as
// GET /v1/transfers/{id} shows it (its confirmation included); pages that
// neither shift nor repeat while new transfers arrive; the status,
// partnerReference, idempotencyKey and [from, to) filters; another partner sees
// none of them; every bad parameter is named.
import type { HttpResult } from '@platform/testing';
import { latestCode, payoutsPartner, PayoutsPartner, transferBody, transferReaches } from './support';

const TRANSFERS = 4;

function ids(result: HttpResult): string[] {
  expect(result.status).toBe(200);
  return (result.body as { id: string }[]).map((transfer) => transfer.id);
}

describe('GET /v1/transfers', () => {
  let p: PayoutsPartner;
  // Oldest first.
  const created: { id: string; idempotencyKey: string }[] = [];

  beforeAll(async () => {
    p = await payoutsPartner({ fundKes: '100000.00' });
    for (let index = 0; index < TRANSFERS; index += 1) {
      const body = transferBody({ partnerReference: `list-${index}` });
      const answer = await p.http.post('/v1/transfers', body);
      expect(answer.status).toBe(202);
      created.push({ id: answer.body.id, idempotencyKey: body.idempotencyKey });
    }
  });

  afterAll(async () => p.receiver.close());

  it("lists the partner's transfers newest first, each as GET /v1/transfers/{id} shows it", async () => {
    const page = await p.http.get('/v1/transfers');
    expect(ids(page)).toEqual(created.map((transfer) => transfer.id).reverse());
    expect(page.headers.get('x-next-cursor')).toBeNull();
    const single = await p.http.get(`/v1/transfers/${created[0]!.id}`);
    expect(page.body.find((transfer: { id: string }) => transfer.id === created[0]!.id)).toEqual(single.body);
  });

  it('pages by cursor, and transfers created meanwhile never shift or repeat a page', async () => {
    const first = await p.http.get('/v1/transfers?limit=3');
    expect(ids(first)).toEqual([created[3]!.id, created[2]!.id, created[1]!.id]);
    const newest = await p.http.post('/v1/transfers', transferBody({ partnerReference: 'during-paging' }));
    const second = await p.http.get(`/v1/transfers?limit=3&cursor=${first.headers.get('x-next-cursor')}`);
    expect(ids(second)).toEqual([created[0]!.id]);
    expect(second.headers.get('x-next-cursor')).toBeNull();
    expect(ids(await p.http.get('/v1/transfers?limit=1'))).toEqual([newest.body.id]);
  });

  it('filters by status, partnerReference, idempotencyKey and creation time', async () => {
    const confirmed = created[1]!.id;
    const confirmationId = (await p.http.get(`/v1/transfers/${confirmed}`)).body.confirmation.id;
    expect(
      (await p.http.post(`/v1/confirmations/${confirmationId}`, { code: await latestCode(p.http, confirmed) })).status,
    ).toBe(200);
    await transferReaches(p.http, confirmed, 'settled');
    expect(ids(await p.http.get('/v1/transfers?status=settled'))).toEqual([confirmed]);
    expect(ids(await p.http.get('/v1/transfers?partnerReference=list-2'))).toEqual([created[2]!.id]);
    expect(ids(await p.http.get(`/v1/transfers?idempotencyKey=${created[3]!.idempotencyKey}`))).toEqual([
      created[3]!.id,
    ]);
    const createdAt = (await p.http.get(`/v1/transfers/${created[2]!.id}`)).body.createdAt as string;
    const until = await p.http.get(`/v1/transfers?to=${encodeURIComponent(createdAt)}`);
    expect(ids(until)).not.toContain(created[2]!.id);
    expect(ids(until)).toEqual(expect.arrayContaining([created[0]!.id]));
    expect(ids(await p.http.get('/v1/transfers?from=2000-01-01&to=2000-01-02'))).toEqual([]);
  });

  it('shows another partner none of them', async () => {
    const other = await payoutsPartner({ withAdmin: false });
    try {
      expect(ids(await other.http.get('/v1/transfers'))).toEqual([]);
      expect(ids(await other.http.get('/v1/transfers?partnerReference=list-0'))).toEqual([]);
    } finally {
      await other.receiver.close();
    }
  });

  it.each([
    ['status=creating', 'status'],
    ['limit=0', 'limit'],
    ['from=2026-02-30', 'from'],
    ['cursor=not-a-cursor', 'cursor'],
    [`idempotencyKey=${'k'.repeat(129)}`, 'idempotencyKey'],
    ['colour=blue', 'colour'],
  ])('refuses %s, naming it', async (query, name) => {
    const refused = await p.http.get(`/v1/transfers?${query}`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(`Validation failed on: ${name}`);
  });
});
