// Proves service identity on the running test stack, for every service:
// - a caller without a certificate (TLS without one, or plaintext) is refused
//   before any handler, while a caller with a platform certificate is served;
// - a certificate from another CA is refused, even one naming `ops`;
// - an expired certificate from the stack's own CA is refused;
// - the gateway's own identity cannot post ledger entries, mint credentials or
//   repoint webhooks: PostEntry, IssueCredential and SetEndpoint answer
//   PERMISSION_DENIED, write nothing, and the refusing service logs a security
//   line naming the caller and the method; the identities those RPCs are meant
//   for get past the same allow-lists.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ChannelCredentials, credentials, status } from '@grpc/grpc-js';
import { rawCallStatus, type RawMethod } from '@platform/grpc/dist/testing/raw-call';
import { Pool } from 'pg';
import { gateway, health, ledger, webhookDelivery } from '@platform/proto';
import {
  createTestPartner,
  loadTestStack,
  readServiceLogs,
  stackIdentity,
  TestCertificateAuthority,
  TestPartner,
  waitFor,
} from '@platform/testing';

const SERVICES = [
  'gateway',
  'trading',
  'ledger',
  'wallet-registry',
  'payouts',
  'collections',
  'notifier',
  'webhook-delivery',
];
const CALL_DEADLINE_MS = 5_000;
const LOG_WAIT_MS = 10_000;

/** One call on a fresh channel; resolves to its gRPC status code (0 when it succeeded). */
function statusOf<Req, Res>(
  service: string,
  channel: ChannelCredentials,
  method: RawMethod<Req, Res>,
  request: Req,
): Promise<number> {
  return rawCallStatus(
    { address: loadTestStack().grpc[service], credentials: channel, serverName: service, deadlineMs: CALL_DEADLINE_MS },
    method,
    request,
  );
}

const checkHealth = (service: string, channel: ChannelCredentials) =>
  statusOf(service, channel, health.HealthService.check, { service: '' });
const asIdentity = (identity: string, service: string) => stackIdentity(identity).client(service).credentials;

function securityLines(service: string, caller: string, method: string): number {
  // Every replica's log: the balancer may have sent the refused call to any of them.
  return readServiceLogs(service)
    .split('\n')
    .filter(
      (line) =>
        line.includes('"grpc.permission_denied"') &&
        line.includes(`"caller":"${caller}"`) &&
        line.includes(`"method":"${method}"`),
    ).length;
}

let dir: string;
let stackCa: Buffer;
let partner: TestPartner;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'service-identity-'));
  stackCa = readFileSync(loadTestStack().tls!.caFile);
  partner = await createTestPartner();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('who holds no platform certificate is refused by every service', () => {
  it.each(SERVICES)(
    '%s serves a platform identity, and refuses TLS without a certificate and plaintext',
    async (service) => {
      expect(await checkHealth(service, asIdentity('ops', service))).toBe(status.OK);
      expect(await checkHealth(service, credentials.createSsl(stackCa))).toBe(status.UNAVAILABLE);
      expect(await checkHealth(service, credentials.createInsecure())).toBe(status.UNAVAILABLE);
    },
  );

  it.each(SERVICES)('%s refuses a certificate from another CA, even one naming ops', async (service) => {
    const foreign = TestCertificateAuthority.create(path.join(dir, `other-ca-${service}`), 'Another CA').issue('ops');
    const channel = credentials.createSsl(stackCa, readFileSync(foreign.keyFile), readFileSync(foreign.certFile));
    expect(await checkHealth(service, channel)).toBe(status.UNAVAILABLE);
  });

  it.each(SERVICES)("%s refuses an expired certificate from the stack's own CA", async (service) => {
    const stack = loadTestStack();
    const authority = TestCertificateAuthority.fromFiles(
      path.join(dir, `expired-${service}`),
      stack.tls!.caFile,
      path.join(stack.tlsDir, 'ca-key.pem'),
    );
    const expired = authority.issue('ops', { days: -1 });
    const channel = credentials.createSsl(stackCa, readFileSync(expired.keyFile), readFileSync(expired.certFile));
    expect(await checkHealth(service, channel)).toBe(status.UNAVAILABLE);
  });
});

describe("the gateway's identity reaches no raw posting, credential minting or endpoint change", () => {
  let ledgerPool: Pool;
  let gatewayPool: Pool;
  let webhookPool: Pool;

  beforeAll(() => {
    const { databases } = loadTestStack();
    ledgerPool = new Pool({ connectionString: databases.ledger, max: 1 });
    gatewayPool = new Pool({ connectionString: databases.gateway, max: 1 });
    webhookPool = new Pool({ connectionString: databases['webhook-delivery'], max: 1 });
  });

  afterAll(async () => {
    await Promise.all([ledgerPool.end(), gatewayPool.end(), webhookPool.end()]);
  });

  it('ledger PostEntry: PERMISSION_DENIED, no entry, one security line; trading gets past the allow-list', async () => {
    const entryId = randomUUID();
    const { kesAccountId } = partner;
    const request = {
      entryId,
      kind: 'security_probe',
      partnerId: partner.partnerId,
      metadata: {},
      postings: [
        { accountId: kesAccountId, amount: '100.00' },
        { accountId: kesAccountId, amount: '-100.00' },
      ],
    } as unknown as ledger.PostEntryRequest;
    const method = '/ledger.v1.Ledger/PostEntry';
    const before = securityLines('ledger', 'gateway', method);
    expect(await statusOf('ledger', asIdentity('gateway', 'ledger'), ledger.LedgerService.postEntry, request)).toBe(
      status.PERMISSION_DENIED,
    );
    expect((await ledgerPool.query('SELECT id FROM entries WHERE id = $1', [entryId])).rows).toEqual([]);
    await waitFor(() => securityLines('ledger', 'gateway', method) === before + 1, {
      timeoutMs: LOG_WAIT_MS,
      what: 'the ledger to log the refusal',
    });
    // Trading may post: its call reaches the handler, which judges the request itself.
    const judged = await statusOf('ledger', asIdentity('trading', 'ledger'), ledger.LedgerService.postEntry, {
      ...request,
      entryId: randomUUID(),
      postings: [],
    });
    expect([status.INVALID_ARGUMENT, status.FAILED_PRECONDITION]).toContain(judged);
  });

  it('gateway IssueCredential: PERMISSION_DENIED to the gateway itself, no credential; ops may', async () => {
    const count = async () =>
      Number(
        (await gatewayPool.query('SELECT count(*) AS n FROM credentials WHERE partner_id = $1', [partner.partnerId]))
          .rows[0].n,
      );
    const before = await count();
    const method = '/gateway.v1.PartnerAdmin/IssueCredential';
    const lines = securityLines('gateway', 'gateway', method);
    const request = { partnerId: partner.partnerId, scopes: [] };
    expect(
      await statusOf('gateway', asIdentity('gateway', 'gateway'), gateway.PartnerAdminService.issueCredential, request),
    ).toBe(status.PERMISSION_DENIED);
    expect(await count()).toBe(before);
    await waitFor(() => securityLines('gateway', 'gateway', method) === lines + 1, {
      timeoutMs: LOG_WAIT_MS,
      what: 'the gateway to log the refusal',
    });
    expect(
      await statusOf('gateway', asIdentity('ops', 'gateway'), gateway.PartnerAdminService.getPartner, {
        partnerId: partner.partnerId,
      }),
    ).toBe(status.OK);
  });

  it('webhook-delivery SetEndpoint: PERMISSION_DENIED, endpoint unchanged; any other service refused too', async () => {
    const endpoint = async () =>
      (await webhookPool.query('SELECT url FROM endpoints WHERE partner_id = $1', [partner.partnerId])).rows;
    const before = await endpoint();
    const method = '/webhook_delivery.v1.WebhookAdmin/SetEndpoint';
    const lines = securityLines('webhook-delivery', 'gateway', method);
    const request = {
      partnerId: partner.partnerId,
      url: 'https://attacker.example.com/hook',
      signingSecret: `whsec_${randomUUID()}`,
      rotationOverlapSeconds: 0,
    };
    for (const caller of SERVICES.filter((name) => name !== 'webhook-delivery')) {
      expect({
        caller,
        code: await statusOf(
          'webhook-delivery',
          asIdentity(caller, 'webhook-delivery'),
          webhookDelivery.WebhookAdminService.setEndpoint,
          request,
        ),
      }).toEqual({ caller, code: status.PERMISSION_DENIED });
    }
    expect(await endpoint()).toEqual(before);
    await waitFor(() => securityLines('webhook-delivery', 'gateway', method) === lines + 1, {
      timeoutMs: LOG_WAIT_MS,
      what: 'webhook-delivery to log the refusal',
    });
  });
});
