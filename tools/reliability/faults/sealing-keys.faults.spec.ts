// Proves a sealing-key rotation without downtime, end to end, for the gateway's
// signing secrets and webhook-delivery's endpoint secrets. Runs in the serial
// `faults` project, alone, because resealing touches every stored secret:
// - an extra replica of each service runs with a new key first in its ring and
//   the stack's key after it; `ops secrets reseal` through it moves every stored
//   secret to the new key id (remaining 0), the rows read `v2.<new id>.`, and the
//   partner's signed requests still authenticate there (a secret sealed under
//   the new key opens) and its webhooks still arrive signed with its secret;
// - a second reseal moves nothing (idempotent);
// - a replica with the stack's key first moves everything back, after which the
//   stack's own services (whose ring holds the old key only) serve the partner
//   again: the state the other suites expect.
import { createHmac, randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import {
  createTestPartner,
  freePort,
  HttpsReceiver,
  loadTestStack,
  PartnerHttpClient,
  runOps,
  serviceEnvironment,
  ServiceInstance,
  startHttpsReceiver,
  startServiceInstance,
  TestPartner,
  waitFor,
} from '@platform/testing';

const NEW_KEY_ID = 'rotated';
const WEBHOOK_WAIT_MS = 30_000;

interface ResealResult {
  services: Array<{ service: string; currentKeyId: string; resealed: number; remaining: number }>;
}

/** `ops secrets reseal` against the given replicas (their gRPC ports). */
async function reseal(gatewayPort: string, webhookPort: string): Promise<ResealResult> {
  const saved = { gateway: process.env.GATEWAY_GRPC_ADDR, webhook: process.env.WEBHOOK_DELIVERY_GRPC_ADDR };
  process.env.GATEWAY_GRPC_ADDR = `127.0.0.1:${gatewayPort}`;
  process.env.WEBHOOK_DELIVERY_GRPC_ADDR = `127.0.0.1:${webhookPort}`;
  try {
    return await runOps<ResealResult>(['secrets', 'reseal']);
  } finally {
    if (saved.gateway === undefined) delete process.env.GATEWAY_GRPC_ADDR;
    else process.env.GATEWAY_GRPC_ADDR = saved.gateway;
    if (saved.webhook === undefined) delete process.env.WEBHOOK_DELIVERY_GRPC_ADDR;
    else process.env.WEBHOOK_DELIVERY_GRPC_ADDR = saved.webhook;
  }
}

/** A replica of the gateway and one of webhook-delivery, each with `ring` as its key ring. */
async function replicas(
  credentialRing: string,
  webhookRing: string,
): Promise<{ gateway: ServiceInstance; webhook: ServiceInstance; httpPort: number }> {
  const httpPort = await freePort();
  const gateway = await startServiceInstance('gateway', {
    CREDENTIAL_ENCRYPTION_KEY: credentialRing,
    HTTP_PORT: String(httpPort),
  });
  const webhook = await startServiceInstance('webhook-delivery', { WEBHOOK_SECRET_ENCRYPTION_KEY: webhookRing });
  return { gateway, webhook, httpPort };
}

const sealedPrefixes = (rows: Array<{ sealed: string | null }>) =>
  [...new Set(rows.map((row) => row.sealed?.split('.').slice(0, 2).join('.')))].sort();

let partner: TestPartner;
let receiver: HttpsReceiver;
let gatewayPool: Pool;
let webhookPool: Pool;
let oldCredentialKey: string;
let oldWebhookKey: string;
const newCredentialKey = randomBytes(32).toString('hex');
const newWebhookKey = randomBytes(32).toString('hex');
const webhookSecret = `whsec_${randomBytes(24).toString('hex')}`;

beforeAll(async () => {
  const { databases } = loadTestStack();
  gatewayPool = new Pool({ connectionString: databases.gateway, max: 1 });
  webhookPool = new Pool({ connectionString: databases['webhook-delivery'], max: 1 });
  oldCredentialKey = serviceEnvironment('gateway').CREDENTIAL_ENCRYPTION_KEY;
  oldWebhookKey = serviceEnvironment('webhook-delivery').WEBHOOK_SECRET_ENCRYPTION_KEY;
  partner = await createTestPartner();
  receiver = await startHttpsReceiver();
  await runOps(['webhook', 'set', '--partner', partner.partnerId, '--url', receiver.url, '--secret', webhookSecret]);
});

afterAll(async () => {
  await receiver?.close();
  await Promise.all([gatewayPool?.end(), webhookPool?.end()]);
});

async function expectWebhookSignedWithSecret(http: PartnerHttpClient): Promise<void> {
  const before = receiver.requests.length;
  const credit = await http.post('/v1/sandbox/kes-credits', { amount: '10.00' });
  expect(credit.status).toBeLessThan(300);
  await waitFor(() => receiver.requests.length > before, {
    timeoutMs: WEBHOOK_WAIT_MS,
    what: 'a webhook for the sandbox credit',
  });
  const request = receiver.requests[receiver.requests.length - 1];
  const timestamp = request.headers['x-service-timestamp'] as string;
  const deliveryId = request.headers['x-service-delivery'] as string;
  const expected = createHmac('sha256', webhookSecret)
    .update(`${timestamp}.${deliveryId}.${request.body}`)
    .digest('hex');
  expect((request.headers['x-service-signature'] as string).split(',')).toContain(`v1=${expected}`);
}

it('moves every sealed secret to a new key and back, while the partner keeps working', async () => {
  const forward = await replicas(
    `${NEW_KEY_ID}:${newCredentialKey},k0:${oldCredentialKey}`,
    `${NEW_KEY_ID}:${newWebhookKey},k0:${oldWebhookKey}`,
  );
  try {
    const moved = await reseal(forward.gateway.env.GRPC_PORT, forward.webhook.env.GRPC_PORT);
    expect(
      moved.services.map(({ service, currentKeyId, remaining }) => ({ service, currentKeyId, remaining })),
    ).toEqual([
      { service: 'gateway', currentKeyId: NEW_KEY_ID, remaining: 0 },
      { service: 'webhook-delivery', currentKeyId: NEW_KEY_ID, remaining: 0 },
    ]);
    expect(moved.services.every((entry) => entry.resealed > 0)).toBe(true);
    expect(sealedPrefixes((await gatewayPool.query('SELECT secret_sealed AS sealed FROM credentials')).rows)).toEqual([
      `v2.${NEW_KEY_ID}`,
    ]);
    expect(sealedPrefixes((await webhookPool.query('SELECT secret_sealed AS sealed FROM endpoints')).rows)).toEqual([
      `v2.${NEW_KEY_ID}`,
    ]);
    expect(
      (await reseal(forward.gateway.env.GRPC_PORT, forward.webhook.env.GRPC_PORT)).services.map(
        (entry) => entry.resealed,
      ),
    ).toEqual([0, 0]);
    // The replica with the new key first authenticates the partner; its webhook secret still signs.
    const http = new PartnerHttpClient(partner, `http://127.0.0.1:${forward.httpPort}`);
    expect((await http.get('/v1/balances')).status).toBe(200);
  } finally {
    await forward.gateway.stop();
    await forward.webhook.stop();
  }

  const back = await replicas(
    `k0:${oldCredentialKey},${NEW_KEY_ID}:${newCredentialKey}`,
    `k0:${oldWebhookKey},${NEW_KEY_ID}:${newWebhookKey}`,
  );
  try {
    const restored = await reseal(back.gateway.env.GRPC_PORT, back.webhook.env.GRPC_PORT);
    expect(restored.services.map(({ currentKeyId, remaining }) => ({ currentKeyId, remaining }))).toEqual([
      { currentKeyId: 'k0', remaining: 0 },
      { currentKeyId: 'k0', remaining: 0 },
    ]);
  } finally {
    await back.gateway.stop();
    await back.webhook.stop();
  }
  expect(sealedPrefixes((await gatewayPool.query('SELECT secret_sealed AS sealed FROM credentials')).rows)).toEqual([
    'v2.k0',
  ]);
  // The stack's own services, whose ring holds only k0, serve the partner again, webhooks included.
  const http = new PartnerHttpClient(partner);
  expect((await http.get('/v1/balances')).status).toBe(200);
  await expectWebhookSignedWithSecret(http);
});
