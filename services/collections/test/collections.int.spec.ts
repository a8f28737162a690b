// Proves the partner-facing collection routes through the gateway against the
// running stack: creation (spec shape, unique check-symbol reference, masked
// dedicated account, ABA-valid routing number, default fee terms), idempotent
// partnerReference, every body refusal, GET by id with foreign and malformed
// ids 404, every list filter and its validation, cursor pagination with the
// X-Next-Cursor header, and scopes.
import { UUID_PATTERN } from '@platform/ids';
import { createTestPartner, PartnerHttpClient, runOps, TestPartner, waitFor } from '@platform/testing';
import {
  CollectionView,
  createCollection,
  deposit,
  ISO_TIMESTAMP_MS,
  readCollection,
  REFERENCE,
} from './collections-support';

function abaValid(routing: string): boolean {
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  return (
    /^\d{9}$/.test(routing) &&
    weights.reduce((sum, weight, index) => sum + weight * Number(routing[index]), 0) % 10 === 0
  );
}

/** A reference with one symbol changed: the check symbol must catch it. */
function mistype(reference: string): string {
  const replacement = reference[3] === 'A' ? 'B' : 'A';
  return reference.slice(0, 3) + replacement + reference.slice(4);
}

describe('collections: create, read, list', () => {
  let partner: TestPartner;
  let http: PartnerHttpClient;

  beforeAll(async () => {
    partner = await createTestPartner();
    http = new PartnerHttpClient(partner);
  });

  it('creates an open collection in the spec shape with default fee terms', async () => {
    const response = await http.post<CollectionView>('/v1/collections', {
      currency: 'USD',
      partnerReference: 'inv-shape-1',
      payerLabel: 'Acme Payer',
      expectedAmount: '250',
    });
    expect(response.status).toBe(201);
    const collection = response.body;
    expect(Object.keys(collection).slice(0, 11)).toEqual([
      'id',
      'reference',
      'status',
      'currency',
      'depositInstructions',
      'fee',
      'expectedAmount',
      'grossAmount',
      'feeAmount',
      'netAmount',
      'createdAt',
    ]);
    expect(collection).toMatchObject({
      id: expect.stringMatching(UUID_PATTERN),
      reference: expect.stringMatching(REFERENCE),
      status: 'open',
      currency: 'USD',
      fee: { percentBps: 100, flatMinor: 30, capMinor: 2500, currency: 'USD' },
      expectedAmount: '250.00',
      grossAmount: null,
      feeAmount: null,
      netAmount: null,
      createdAt: expect.stringMatching(ISO_TIMESTAMP_MS),
      expiresAt: expect.stringMatching(ISO_TIMESTAMP_MS),
      partnerReference: 'inv-shape-1',
      payerLabel: 'Acme Payer',
      amountMismatch: null,
      senderName: null,
      treasuryCreditTxId: null,
    });
    const instructions = collection.depositInstructions;
    expect(instructions.accountNumber).toMatch(/^\*\*\*\*\d{4}$/);
    expect(abaValid(instructions.routingNumber)).toBe(true);
    expect(instructions.rails).toEqual(['ach_push', 'fednow', 'wire']);
    expect(instructions.depositMessage).toContain(collection.reference);
    expect(instructions.beneficiaryName).toEqual(expect.any(String));
    expect(instructions.bankName).toEqual(expect.any(String));
    expect(Date.parse(collection.expiresAt)).toBeGreaterThan(Date.parse(collection.createdAt));

    const read = await http.get<CollectionView>(`/v1/collections/${collection.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(collection);
  });

  it('gives every collection its own reference and deposit account', async () => {
    const first = await createCollection(http);
    const second = await createCollection(http);
    expect(first.reference).not.toBe(second.reference);
    expect(first.id).not.toBe(second.id);
  });

  it('answers a repeated partnerReference with the original, and refuses it with another body', async () => {
    const body = { currency: 'USD', partnerReference: 'inv-repeat-1', payerLabel: 'Repeat Payer' };
    const first = await http.post<CollectionView>('/v1/collections', body);
    const again = await http.post<CollectionView>('/v1/collections', body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const concurrent = await Promise.all(
      [1, 2, 3].map(() => http.post<CollectionView>('/v1/collections', { ...body, partnerReference: 'inv-race-1' })),
    );
    expect(concurrent.map((response) => response.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(concurrent.map((response) => response.body.id)).size).toBe(1);
    const reused = await http.post('/v1/collections', { ...body, payerLabel: 'Someone Else' });
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ statusCode: 409, message: 'IDEMPOTENCY_KEY_REUSED', error: 'Conflict' });
  });

  it('refuses bad bodies, naming each field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ partnerReference: 'a', payerLabel: 'b' }, 'currency'],
      [{ currency: 'KES', partnerReference: 'a', payerLabel: 'b' }, 'currency'],
      [{ currency: 'USD', payerLabel: 'b' }, 'partnerReference'],
      [{ currency: 'USD', partnerReference: 'has space', payerLabel: 'b' }, 'partnerReference'],
      [{ currency: 'USD', partnerReference: 'a', payerLabel: '   ' }, 'payerLabel'],
      [{ currency: 'USD', partnerReference: 'a', payerLabel: 'b', expectedAmount: 10 }, 'expectedAmount'],
      [{ currency: 'USD', partnerReference: 'a', payerLabel: 'b', expectedAmount: '1.001' }, 'expectedAmount'],
      [{ currency: 'USD', partnerReference: 'a', payerLabel: 'b', expectedAmount: '0' }, 'expectedAmount'],
      [{ currency: 'USD', partnerReference: 'a', payerLabel: 'b', amount: '1.00' }, 'amount'],
      [{ currency: 'USD', partnerReference: 'a' }, 'payerLabel'],
    ];
    for (const [body, field] of cases) {
      const response = await http.post('/v1/collections', body);
      expect({ body, status: response.status, message: response.body.message }).toEqual({
        body,
        status: 400,
        message: `Validation failed on: ${field}`,
      });
    }
    const several = await http.post('/v1/collections', { currency: 'EUR', expectedAmount: 'x' });
    expect(several.body.message).toBe('Validation failed on: currency, expectedAmount, partnerReference, payerLabel');
  });

  it('answers 404 COLLECTION_NOT_FOUND for unknown, malformed and foreign ids', async () => {
    const mine = await createCollection(http);
    const other = new PartnerHttpClient(await createTestPartner());
    for (const path of [
      `/v1/collections/${mine.id}`,
      '/v1/collections/0b6c9d1e-8a2f-4c3b-9d4e-5f6a7b8c9d0e',
      '/v1/collections/not-a-uuid',
    ]) {
      const response = await other.get(path);
      expect({ path, status: response.status, message: response.body.message }).toEqual({
        path,
        status: 404,
        message: 'COLLECTION_NOT_FOUND',
      });
    }
    const foreignDeposit = await other.post(`/v1/sandbox/collections/${mine.id}/deposits`, { amount: '10.00' });
    expect(foreignDeposit.status).toBe(404);
    expect(foreignDeposit.body.message).toBe('COLLECTION_NOT_FOUND');
    const foreignList = await other.get<CollectionView[]>(`/v1/collections?reference=${mine.reference}`);
    expect(foreignList.body).toEqual([]);
  });

  it('needs the collections scope to create and read to list', async () => {
    const readOnly = await runOps<{ apiKey: string; signingSecret: string }>([
      'credential',
      'issue',
      '--partner',
      partner.partnerId,
      '--scopes',
      'read',
    ]);
    const reader = new PartnerHttpClient({
      ...partner,
      apiKey: readOnly.apiKey,
      signingSecret: readOnly.signingSecret,
    });
    const refused = await reader.post('/v1/collections', {
      currency: 'USD',
      partnerReference: 'inv-scope',
      payerLabel: 'x',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('INSUFFICIENT_SCOPE');
    expect((await reader.get('/v1/collections')).status).toBe(200);
  });
});

describe('collections: list filters and pages', () => {
  let http: PartnerHttpClient;
  let made: CollectionView[];

  beforeAll(async () => {
    http = new PartnerHttpClient(await createTestPartner());
    made = [];
    for (let index = 0; index < 3; index += 1)
      made.push(await createCollection(http, { partnerReference: `inv-list-${index}` }));
    expect((await deposit(http, made[0]!.id, { amount: '20.00' })).status).toBe(201);
    // The deposit answer usually shows the collection credited already, but the
    // background credit step may claim the row first; wait for it either way.
    await waitFor(async () => (await readCollection(http, made[0]!.id)).status === 'credited', {
      timeoutMs: 10_000,
      what: 'the collection to be credited',
    });
  });

  const ids = (collections: CollectionView[]) => collections.map((collection) => collection.id);

  it('lists newest first, with no filter', async () => {
    const response = await http.get<CollectionView[]>('/v1/collections');
    expect(response.status).toBe(200);
    expect(ids(response.body)).toEqual(ids([...made].reverse()));
    expect(response.headers.get('x-next-cursor')).toBeNull();
  });

  it('filters by status', async () => {
    expect(ids((await http.get<CollectionView[]>('/v1/collections?status=open')).body)).toEqual([
      made[2]!.id,
      made[1]!.id,
    ]);
    expect(ids((await http.get<CollectionView[]>('/v1/collections?status=credited')).body)).toEqual([made[0]!.id]);
    expect((await http.get<CollectionView[]>('/v1/collections?status=expired')).body).toEqual([]);
  });

  it('filters by reference, as typed (case, hyphens) or exact', async () => {
    const reference = made[1]!.reference;
    expect(ids((await http.get<CollectionView[]>(`/v1/collections?reference=${reference}`)).body)).toEqual([
      made[1]!.id,
    ]);
    const typed = `${reference.slice(0, 5)}-${reference.slice(5)}`.toLowerCase();
    expect(ids((await http.get<CollectionView[]>(`/v1/collections?reference=${typed}`)).body)).toEqual([made[1]!.id]);
    const mistyped = await http.get(`/v1/collections?reference=${mistype(reference)}`);
    expect(mistyped.status).toBe(400);
    expect(mistyped.body.message).toBe('Validation failed on: reference');
  });

  it('filters by creation time, from inclusive and to exclusive', async () => {
    const middle = made[1]!.createdAt;
    const from = await http.get<CollectionView[]>(`/v1/collections?from=${encodeURIComponent(middle)}`);
    expect(ids(from.body)).toEqual([made[2]!.id, made[1]!.id]);
    const to = await http.get<CollectionView[]>(`/v1/collections?to=${encodeURIComponent(middle)}`);
    expect(ids(to.body)).toEqual([made[0]!.id]);
    const window = await http.get<CollectionView[]>(
      `/v1/collections?from=${encodeURIComponent(middle)}&to=${encodeURIComponent(made[2]!.createdAt)}`,
    );
    expect(ids(window.body)).toEqual([made[1]!.id]);
  });

  it('pages with limit and the X-Next-Cursor header', async () => {
    const first = await http.get<CollectionView[]>('/v1/collections?limit=2');
    expect(ids(first.body)).toEqual([made[2]!.id, made[1]!.id]);
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await http.get<CollectionView[]>(`/v1/collections?limit=2&cursor=${cursor}`);
    expect(ids(second.body)).toEqual([made[0]!.id]);
    expect(second.headers.get('x-next-cursor')).toBeNull();
    const filtered = await http.get<CollectionView[]>(
      `/v1/collections?status=open&limit=1&cursor=${(await http.get('/v1/collections?status=open&limit=1')).headers.get('x-next-cursor')}`,
    );
    expect(ids(filtered.body)).toEqual([made[1]!.id]);
  });

  it('refuses every bad query parameter, naming each', async () => {
    const cases: Array<[string, string]> = [
      ['status=bogus', 'status'],
      ['status=OPEN', 'status'],
      ['from=yesterday', 'from'],
      ['to=2026-13-01', 'to'],
      ['from=2026-01-01T10:00', 'from'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['cursor=%40%40', 'cursor'],
      ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
      ['reference=', 'reference'],
      ['foo=1', 'foo'],
      ['status=open&status=received', 'status'],
    ];
    for (const [query, name] of cases) {
      const response = await http.get(`/v1/collections?${query}`);
      expect({ query, status: response.status, message: response.body.message }).toEqual({
        query,
        status: 400,
        message: `Validation failed on: ${name}`,
      });
    }
    const several = await http.get('/v1/collections?status=x&from=y&limit=0');
    expect(several.status).toBe(400);
    for (const name of ['status', 'from', 'limit']) expect(several.body.message).toContain(name);
    expect((await http.get('/v1/collections?from=2026-01-01&to=2026-01-02T00:00:00%2B03:00')).status).toBe(200);
  });
});
