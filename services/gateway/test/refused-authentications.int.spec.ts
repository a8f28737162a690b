// Proves the per-address limit on refused authentications on a real gateway
// (an extra replica of the stack's, allowed 3 refusals a minute): after three
// 401s from this address the next request, even a correctly signed one, is a
// 429 with Retry-After-partner for the rest of the minute, while the stack's own
// replica (its own count) still serves the same partner.
import {
  createTestPartner,
  PartnerHttpClient,
  ServiceInstance,
  freePort,
  loadTestStack,
  startServiceInstance,
  waitFor,
} from '@platform/testing';
import { requestIdOf, unknownApiKey } from './helpers';

const REFUSALS_ALLOWED = 3;
const READY_TIMEOUT_MS = 20_000;

describe('refused authentications per client address', () => {
  let instance: ServiceInstance;
  let instanceUrl: string;

  beforeAll(async () => {
    const httpPort = await freePort();
    instance = await startServiceInstance('gateway', {
      HTTP_PORT: String(httpPort),
      AUTH_REFUSALS_PER_MINUTE_PER_ADDRESS: String(REFUSALS_ALLOWED),
    });
    const url = new URL(loadTestStack().gatewayUrl);
    url.port = String(httpPort);
    instanceUrl = url.origin;
    await waitFor(async () => (await fetch(`${instanceUrl}/healthz`).catch(() => null))?.status === 200, {
      timeoutMs: READY_TIMEOUT_MS,
      what: 'the extra gateway',
    });
  });

  afterAll(async () => instance?.stop());

  it('answers 429 to an address past its refusals, even signed correctly, and leaves other replicas alone', async () => {
    const partner = await createTestPartner();
    const honest = new PartnerHttpClient(partner, instanceUrl);
    const prober = new PartnerHttpClient(
      { apiKey: unknownApiKey(), signingSecret: partner.signingSecret },
      instanceUrl,
    );

    for (let attempt = 0; attempt < REFUSALS_ALLOWED; attempt += 1)
      expect((await prober.get('/v1/health')).status).toBe(401);
    const limited = await honest.get('/v1/health');
    expect(limited.status).toBe(429);
    expect(limited.text).toBe(
      `{"statusCode":429,"message":"Too Many Requests","error":"Too Many Requests","requestId":"${requestIdOf(limited)}"}`,
    );
    expect(Number(limited.headers.get('retry-after-partner'))).toBeGreaterThanOrEqual(50);
    expect(limited.headers.get('retry-after')).toBe(limited.headers.get('retry-after-partner'));

    expect((await new PartnerHttpClient(partner).get('/v1/health')).status).toBe(200);
  });
});
