// The sandbox partner: created once with the ops tool, kept in a file (.stack/partner.json
// for `npm start`, a volume for `docker compose up`), and checked on every start with a
// signed GET /v1/health. Request signing as docs/getting-started.md describes it.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { readJson, run, writeJson } from './processes.mjs';

const OPS_TIMEOUT_MS = 60_000;
const HEALTH_REQUEST_TIMEOUT_MS = 5_000;
const SANDBOX_PARTNER = { name: 'Sandbox Partner', adminDomain: 'example.com' };
const PARTNER_FIELDS = ['partnerId', 'apiKey', 'signingSecret', 'kesAccountId', 'usdtDepositAddress'];

const sha256Hex = (data) => createHash('sha256').update(data).digest('hex');

/** The four authentication headers for one request. */
export function signRequest({ apiKey, signingSecret }, { method, pathAndQuery, body = '' }) {
  const timestamp = String(Date.now());
  const nonce = randomBytes(16).toString('hex');
  const signed = ['v1', timestamp, nonce, method.toUpperCase(), pathAndQuery, sha256Hex(body)].join('\n');
  return {
    'X-Service-Key': apiKey,
    'X-Service-Timestamp': timestamp,
    'X-Service-Nonce': nonce,
    'X-Service-Signature': `v1=${createHmac('sha256', signingSecret).update(signed, 'utf8').digest('hex')}`,
  };
}

/** Status code of a signed GET /v1/health with the saved credentials (null when unreachable). */
function signedHealthStatus(partner, baseUrl) {
  const headers = signRequest(partner, { method: 'GET', pathAndQuery: '/v1/health' });
  return new Promise((resolve) => {
    const request = http.get(`${baseUrl}/v1/health`, { headers, timeout: HEALTH_REQUEST_TIMEOUT_MS }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(null));
  });
}

async function createPartner(profile) {
  const ops = path.join(profile.repoRoot, 'tools', 'ops', 'dist', 'main.js');
  const args = [
    ops,
    'partner',
    'create',
    '--name',
    SANDBOX_PARTNER.name,
    '--admin-domain',
    SANDBOX_PARTNER.adminDomain,
    '--json',
  ];
  const env = { ...process.env, OPS_STACK_FILE: profile.stackFile };
  const { stdout } = await run(process.execPath, args, { cwd: profile.repoRoot, env, timeoutMs: OPS_TIMEOUT_MS });
  const created = JSON.parse(stdout.trim());
  const missing = PARTNER_FIELDS.filter((field) => !created[field]);
  if (missing.length > 0) throw new Error(`ops partner create printed no ${missing.join(', ')}`);
  return created;
}

/**
 * Keeps the saved partner when the gateway still accepts its credentials (anything but a
 * 401), otherwise creates a new one. Resolves to { partner, created }. `profile.publicUrl`
 * (when the gateway is reached at another address than partners use, as in containers)
 * is the `baseUrl` written; `profile.gatewayUrl` is where the check goes.
 */
export async function ensureSandboxPartner(profile) {
  const baseUrl = profile.publicUrl ?? profile.gatewayUrl;
  const saved = readJson(profile.partnerFile);
  if (saved && PARTNER_FIELDS.every((field) => saved[field])) {
    const status = await signedHealthStatus(saved, profile.gatewayUrl);
    if (status === null) throw new Error(`gateway at ${profile.gatewayUrl} did not answer`);
    if (status !== 401) {
      const partner = { ...saved, baseUrl };
      writeJson(profile.partnerFile, partner, 0o600);
      return { partner, created: false };
    }
  }
  const created = await createPartner(profile);
  const partner = { baseUrl, ...Object.fromEntries(PARTNER_FIELDS.map((f) => [f, created[f]])) };
  writeJson(profile.partnerFile, partner, 0o600);
  return { partner, created: true };
}

const shellQuote = (value) => `'${String(value).replaceAll("'", "'\\''")}'`;

/** A copy-paste shell recipe (curl + openssl) that signs GET /v1/health. */
export function signingRecipe(partner) {
  return [
    `KEY=${shellQuote(partner.apiKey)}; SECRET=${shellQuote(partner.signingSecret)}; URL=${shellQuote(partner.baseUrl)}`,
    'TS=$(date +%s%3N); NONCE=$(openssl rand -hex 16); BODY_SHA=$(printf \'\' | openssl dgst -sha256 -r | cut -d" " -f1)',
    'SIG=$(printf \'v1\\n%s\\n%s\\nGET\\n/v1/health\\n%s\' "$TS" "$NONCE" "$BODY_SHA" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d" " -f1)',
    'curl -s "$URL/v1/health" -H "X-Service-Key: $KEY" -H "X-Service-Timestamp: $TS" -H "X-Service-Nonce: $NONCE" -H "X-Service-Signature: v1=$SIG"',
  ].join('\n');
}
