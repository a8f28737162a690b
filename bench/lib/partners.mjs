// Bench partners: created with the ops tool like any partner, a raised rate limit and caps
// that never refuse a bench order, a pinned sandbox rate, a funded KES balance, and the
// bench receiver as their webhook endpoint (so settlement's webhooks are part of the work).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/profiles.mjs';
import { keepAliveAgent, PartnerClient } from './http.mjs';
import { runOps } from './stack.mjs';

const require = createRequire(import.meta.url);
const GATEWAY_DIR = path.join(REPO_ROOT, 'services', 'gateway');

export const RATE_LIMIT_PER_MINUTE = 100_000;
/** Every bench partner's administrators' e-mail domain (a partner's administrators must be on its own). */
export const BENCH_ADMIN_DOMAIN = 'bench.example.com';
export const DAILY_CAP_KES = '100000000.00';
export const PER_ORDER_CAP_KES = '1000000.00';
/** 99,502 orders of ORDER_KES with their fee: more than any bounded run places. */
export const FUNDING_KES_DEFAULT = '10000000.00';
/** What every bench order buys; the rate is pinned so every quote prices the same. */
export const ORDER_KES = '100.00';
export const BID = '128.0000';
export const ASK = '130.0000';

/**
 * A new partner ready to order: { partnerId, credentials, client }. `sockets` bounds its
 * keep-alive connections (one per client that will use it at once).
 */
export async function createBenchPartner({
  stackFile,
  gatewayUrl,
  receiverUrl,
  name,
  fundingKes = [FUNDING_KES_DEFAULT],
  sockets = 1,
}) {
  const partner = await runOps(stackFile, [
    'partner',
    'create',
    '--name',
    name,
    '--admin-domain',
    BENCH_ADMIN_DOMAIN,
    '--rate-limit-per-minute',
    String(RATE_LIMIT_PER_MINUTE),
    '--daily-cap-kes',
    DAILY_CAP_KES,
    '--per-order-cap-kes',
    PER_ORDER_CAP_KES,
  ]);
  await runOps(stackFile, [
    'webhook',
    'set',
    '--partner',
    partner.partnerId,
    '--url',
    receiverUrl,
    '--secret',
    `whsec_${randomBytes(24).toString('hex')}`,
  ]);
  const credentials = { apiKey: partner.apiKey, signingSecret: partner.signingSecret };
  const client = new PartnerClient(gatewayUrl, credentials, keepAliveAgent(sockets));
  await client.expect('POST', '/v1/sandbox/rates', { bid: BID, ask: ASK }, 200);
  for (const amount of fundingKes) await client.expect('POST', '/v1/sandbox/kes-credits', { amount }, 201);
  return { partnerId: partner.partnerId, credentials, client };
}

/** How often a load's partner has its rate-limit window emptied: 5 s at 5,700 req/s is 28,500 requests. */
const RATE_WINDOW_EMPTIED_EVERY_MS = 5_000;

/**
 * Runs `work` with the partner's rate-limit window in the stack's Redis emptied before it and
 * every RATE_WINDOW_EMPTIED_EVERY_MS during it, so a load is not refused for the requests of the
 * loads before it nor for its own length: a read load runs at up to 5,700 req/s, the highest limit
 * a partner can have is 100,000 a minute, and the window is a rolling minute. The gateway still
 * checks and counts every request as it would any partner's.
 */
export async function withRateWindowEmptied(redisUrl, partnerId, work) {
  const { Redis } = require(require.resolve('ioredis', { paths: [GATEWAY_DIR] }));
  // The gateway's own key for the window, from its build (npm run build first when the bench
  // measures a stack it did not start: BENCH_STACK_FILE).
  const { rateLimitKey } = require(path.join(GATEWAY_DIR, 'dist', 'domain', 'rate-limit.js'));
  const key = rateLimitKey(partnerId);
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  let timer;
  try {
    await redis.connect();
    await redis.del(key);
    let failure;
    timer = setInterval(() => {
      redis.del(key).catch((error) => {
        failure ??= error;
      });
    }, RATE_WINDOW_EMPTIED_EVERY_MS);
    const result = await work();
    if (failure) throw new Error(`the rate-limit window of ${partnerId} could not be emptied: ${failure.message}`);
    return result;
  } finally {
    clearInterval(timer);
    redis.disconnect();
  }
}
