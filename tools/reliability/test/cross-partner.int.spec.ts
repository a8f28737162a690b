// Proves that a partner can never reach another partner's resources by id:
// every id route in routes.ts, given the id of a resource another partner owns,
// answers 404 with the route's NOT_FOUND code (exactly as for an id that names
// nothing, so existence is not revealed), and the owner's resource is
// unchanged. Table-driven: a new kind of resource is one entry in RESOURCES,
// a new id route one entry in routes.ts.
import { randomUUID } from 'node:crypto';
import { createTestPartner, PartnerHttpClient, runOps, sandboxCode, waitFor } from '@platform/testing';
import { ID_ROUTES, newTronAddress, ResourceKind, validBody, withId } from './routes';
import { apiState, expectEnvelope } from './support';

const RATE_LIMIT_PER_MINUTE = 100_000;
/** A USDT deposit held because trading missed the ledger's offer is credited after 60 s; plus a margin. */
const USDT_CREDIT_WAIT_MS = 75_000;
/** Above the integration default (60 s): creating a USDT send may wait USDT_CREDIT_WAIT_MS for its funding. */
const RESOURCE_TEST_TIMEOUT_MS = 120_000;
/** The owner's resources as the API shows them (its outbox is left out: codes arrive there asynchronously). */
const OWNER_READS = ['/v1/admins', '/v1/wallets', '/v1/balances'];

interface Owner {
  partnerId: string;
  client: PartnerHttpClient;
  adminDomain: string;
}

function created(what: string, response: { status: number; text: string; body: any }, status: number): any {
  if (response.status !== status) throw new Error(`${what}: ${response.status} ${response.text}`);
  return response.body;
}

/** How to create one resource of each kind for its owner; returns its id. */
const RESOURCES: Record<ResourceKind, (owner: Owner) => Promise<string>> = {
  admin: async ({ client, adminDomain }) => {
    const created = await client.post('/v1/admins', {
      email: `owner.${randomUUID().slice(0, 8)}@${adminDomain}`,
      name: 'Owner Admin',
    });
    if (created.status !== 201) throw new Error(`admin: ${created.status} ${created.text}`);
    return created.body.adminId;
  },
  wallet: async ({ client }) => {
    const created = await client.post('/v1/wallets', { chain: 'tron', asset: 'USDT', address: newTronAddress() });
    if (created.status !== 201) throw new Error(`wallet: ${created.status} ${created.text}`);
    return created.body.walletId;
  },
  // A deposit-mode sell order: it waits for USDT, so nothing the owner reads moves while the spec runs.
  order: async ({ partnerId, client }) => {
    const destination = await runOps<{ id: string }>([
      'payout-destination',
      'add',
      '--partner',
      partnerId,
      '--account-number',
      '254712345678',
      '--account-name',
      'Owner Payee',
    ]);
    const quote = created('quote', await client.post('/v1/quotes', { side: 'sell', usdtAmount: '1.000000' }), 201);
    const order = created(
      'order',
      await client.post('/v1/orders/sell', {
        quoteId: quote.quoteId,
        partnerReference: randomUUID(),
        payoutAccountId: destination.id,
      }),
      202,
    );
    return order.orderId;
  },
  collection: async ({ client }) => {
    return created(
      'collection',
      await client.post('/v1/collections', {
        currency: 'USD',
        partnerReference: randomUUID(),
        payerLabel: 'Owner Payer',
      }),
      201,
    ).collectionId;
  },
  push: async ({ client }) => {
    return created(
      'push',
      await client.post('/v1/funding/mobile-money-push', { phone: '0712345678', amount: '10.00' }),
      202,
    ).pushId;
  },
  transfer: async (owner) => (await settledTransfer(owner)).id,
  confirmation: async (owner) => (await settledTransfer(owner)).confirmation.id,
  usdt_send: async (owner) => settledUsdtSend(owner),
  transfer_batch: async (owner) => settledBatch(owner),
  // A balance's account: its statement is the owner's alone.
  account: async ({ client }) => created('balances', await client.get('/v1/balances'), 200)[0].accountId,
  // The owner has no webhook endpoint, so a credit's delivery is held: nothing about it changes while the intruder probes.
  webhook_delivery: async ({ client }) => {
    created('credit', await client.post('/v1/sandbox/kes-credits', { amount: '10.00' }), 201);
    return waitFor(
      async () =>
        ((await client.get('/v1/webhook-deliveries')).body as Array<{ id: string; status: string }>).find(
          (delivery) => delivery.status === 'held',
        )?.id,
      { what: "the owner's held webhook delivery" },
    );
  },
};

/** A one-item batch, confirmed and settled. */
async function settledBatch({ client }: Owner): Promise<string> {
  await client.post('/v1/sandbox/kes-credits', { amount: '100.00' });
  const batch = await client.post('/v1/transfers/batch', {
    idempotencyKey: `owner-${randomUUID()}`,
    items: [
      {
        rail: 'mobile_money',
        destination: { accountNumber: '254712345678', accountName: 'Owner Payee' },
        amount: { currency: 'KES', value: '10.00' },
        idempotencyKey: `item-${randomUUID()}`,
      },
    ],
  });
  if (batch.status !== 202) throw new Error(`batch: ${batch.status} ${batch.text}`);
  await client.post(`/v1/confirmations/${batch.body.confirmation.id}`, {
    code: await sandboxCode(client.sdk, batch.body.id),
  });
  await waitFor(
    async () => (await client.get(`/v1/transfers/batch/${batch.body.id}`)).body.status === 'completed' || undefined,
    { what: 'the owner batch completed' },
  );
  return batch.body.id;
}

/** A USDT send to an active wallet, confirmed and settled, so nothing about it changes while the intruder probes. */
async function settledUsdtSend({ client }: Owner): Promise<string> {
  const deposit = await client.post('/v1/sandbox/usdt-deposits', {
    txHash: randomUUID().replace(/-/g, '').repeat(2),
    usdtAmount: '10.000000',
  });
  if (deposit.status !== 201) throw new Error(`deposit: ${deposit.status} ${deposit.text}`);
  // A loaded trading may miss the ledger's 2 s deposit offer; the deposit then waits 60 s in suspense before it is credited.
  await waitFor(
    async () =>
      ((await client.get('/v1/balances')).body as Array<{ currency: string; available: string }>).some(
        (balance) => balance.currency === 'USDT' && balance.available === '10.000000',
      ) || undefined,
    { timeoutMs: USDT_CREDIT_WAIT_MS, what: 'the owner USDT deposit credited' },
  );
  const wallet = await client.post('/v1/wallets', { chain: 'tron', asset: 'USDT', address: newTronAddress() });
  if (wallet.status !== 201) throw new Error(`wallet: ${wallet.status} ${wallet.text}`);
  await client.post(`/v1/wallets/${wallet.body.walletId}/confirm`, {
    otp: await sandboxCode(client.sdk, wallet.body.walletId),
  });
  await client.post(`/v1/sandbox/wallets/${wallet.body.walletId}/approve`);
  const send = await client.post('/v1/usdt/sends', {
    destinationWalletId: wallet.body.walletId,
    usdtAmount: '1.000000',
    idempotencyKey: `owner-${randomUUID()}`,
  });
  if (send.status !== 202) throw new Error(`send: ${send.status} ${send.text}`);
  await client.post(`/v1/confirmations/${send.body.confirmation.id}`, {
    code: await sandboxCode(client.sdk, send.body.id),
  });
  await waitFor(
    async () => (await client.get(`/v1/usdt/sends/${send.body.id}`)).body.status === 'settled' || undefined,
    { what: 'the owner send settled' },
  );
  return send.body.id;
}

/** A transfer confirmed and settled, so nothing about it changes while the intruder probes (a live one would expire meanwhile). */
async function settledTransfer({ client }: Owner): Promise<{ id: string; confirmation: { id: string } }> {
  const funded = await client.post('/v1/sandbox/kes-credits', { amount: '100.00' });
  if (funded.status !== 201) throw new Error(`credit: ${funded.status} ${funded.text}`);
  const created = await client.post('/v1/transfers', {
    rail: 'mobile_money',
    destination: { accountNumber: '254712345678', accountName: 'Owner Payee' },
    amount: { currency: 'KES', value: '10.00' },
    idempotencyKey: `owner-${randomUUID()}`,
  });
  if (created.status !== 202) throw new Error(`transfer: ${created.status} ${created.text}`);
  const code = await sandboxCode(client.sdk, created.body.id);
  const confirmed = await client.post(`/v1/confirmations/${created.body.confirmation.id}`, { code });
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${confirmed.text}`);
  await waitFor(
    async () => (await client.get(`/v1/transfers/${created.body.id}`)).body.status === 'settled' || undefined,
    { what: 'the owner transfer settled' },
  );
  return created.body;
}

let owner: Owner;
let intruder: PartnerHttpClient;

beforeAll(async () => {
  const adminDomain = `owner-${randomUUID().slice(0, 8)}.example.com`;
  const ownerPartner = await createTestPartner({ adminDomain, rateLimitPerMinute: RATE_LIMIT_PER_MINUTE });
  owner = { partnerId: ownerPartner.partnerId, client: new PartnerHttpClient(ownerPartner), adminDomain };
  // Wallets need an administrator to send their code to.
  await RESOURCES.admin(owner);
  intruder = new PartnerHttpClient(await createTestPartner({ rateLimitPerMinute: RATE_LIMIT_PER_MINUTE }));
});

describe('cross-partner access by id', () => {
  it.each(ID_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s answers 404 for another partner's resource and changes nothing",
    async (_name, route) => {
      if (!route.resource) throw new Error(`${route.method} ${route.path} names no resource kind in routes.ts`);
      const ownedId = await RESOURCES[route.resource](owner);
      const before = await apiState(owner.client, OWNER_READS);
      const body = route.body ? JSON.stringify(validBody(route)) : undefined;
      const foreign = await intruder.request(route.method, withId(route.path, ownedId), undefined, { rawBody: body });
      const unknown = await intruder.request(route.method, withId(route.path, randomUUID()), undefined, {
        rawBody: body,
      });
      expect(foreign.status).toBe(404);
      expectEnvelope(foreign, `foreign ${route.method} ${route.path}`);
      expect(foreign.body.message).toBe(route.notFound);
      // Indistinguishable from an id that names nothing.
      expect({ ...foreign.body, requestId: null }).toEqual({ ...unknown.body, requestId: null });
      expect(await apiState(owner.client, OWNER_READS)).toEqual(before);
    },
    RESOURCE_TEST_TIMEOUT_MS,
  );
});
