// Proves a revocation reaches every gateway replica at once, not after the
// credential cache's lifetime: a second gateway replica (started here, with the
// stack's environment) keeps a credential cached by being asked every few
// milliseconds; the credential is revoked through the stack's own replica; the
// second replica refuses it within 100 ms of the revocation's answer, although
// its cached copy had up to CREDENTIAL_CACHE_TTL_MS (2 s) left.
import { gateway } from '@platform/proto';
import {
  clientAs,
  createTestPartner,
  freePort,
  loadTestStack,
  PartnerHttpClient,
  runOps,
  ServiceInstance,
  startServiceInstance,
  waitFor,
} from '@platform/testing';
import { CREDENTIAL_CACHE_TTL_MS, sleep } from './helpers';

const READY_TIMEOUT_MS = 20_000;
const REACHED_WITHIN_MS = 100;
const ASK_EVERY_MS = 10;
const PARTNER_REQUESTS_PER_MINUTE = 6_000;

describe('revocation across gateway replicas', () => {
  let instance: ServiceInstance;
  let instanceUrl: string;

  beforeAll(async () => {
    const httpPort = await freePort();
    instance = await startServiceInstance('gateway', { HTTP_PORT: String(httpPort) });
    const url = new URL(loadTestStack().gatewayUrl);
    url.port = String(httpPort);
    instanceUrl = url.origin;
    await waitFor(async () => (await fetch(`${instanceUrl}/healthz`).catch(() => null))?.status === 200, {
      timeoutMs: READY_TIMEOUT_MS,
      what: 'the extra gateway',
    });
  });

  afterAll(async () => instance?.stop());

  it('refuses a revoked credential on the other replica within 100 ms of the revocation', async () => {
    // Asked every few milliseconds for two seconds: well past the default per-partner limit.
    const partner = await createTestPartner({ rateLimitPerMinute: PARTNER_REQUESTS_PER_MINUTE });
    const issued = await runOps<{ apiKey: string; signingSecret: string }>([
      'credential',
      'issue',
      '--partner',
      partner.partnerId,
    ]);
    const onOther = new PartnerHttpClient(issued, instanceUrl);
    const admin = clientAs('ops', gateway.PartnerAdminService, { upstream: 'gateway' });
    try {
      expect((await onOther.get('/v1/health')).status).toBe(200);
      // Keep the other replica's cached copy warm, and note when each answer was asked for.
      const answers: Array<{ sentAtMs: number; status: number }> = [];
      let asking = true;
      const asker = (async () => {
        while (asking) {
          const sentAtMs = Date.now();
          answers.push({ sentAtMs, status: (await onOther.get('/v1/health')).status });
          await sleep(ASK_EVERY_MS);
        }
      })();
      await sleep(CREDENTIAL_CACHE_TTL_MS / 2);
      const revokeSentAtMs = Date.now();
      await admin.revokeCredential({ apiKey: issued.apiKey });
      const revokedAtMs = Date.now();
      await sleep(CREDENTIAL_CACHE_TTL_MS / 2);
      asking = false;
      await asker;

      // Before the revocation was asked for, the credential worked (and was cached).
      const before = answers.filter((answer) => answer.sentAtMs < revokeSentAtMs);
      expect(before.length).toBeGreaterThan(5);
      expect(before.filter((answer) => answer.status !== 200)).toEqual([]);
      const late = answers.filter((answer) => answer.sentAtMs >= revokedAtMs + REACHED_WITHIN_MS);
      expect(late.length).toBeGreaterThan(5);
      expect(late.filter((answer) => answer.status !== 401)).toEqual([]);
    } finally {
      admin.close();
    }
  });
});
