/** Shared tools of the payouts integration specs: a funded partner with an administrator, codes from the sandbox outbox, webhooks. */
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import {
  createTestPartner,
  HttpsReceiver,
  PartnerHttpClient,
  recordSensitive,
  setPartnerWebhook,
  startHttpsReceiver,
  TestPartner,
  waitFor,
} from '@platform/testing';

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Tests send bursts; a generous limit keeps the partner throttle out of them. */
const TEST_RATE_LIMIT_PER_MINUTE = 100_000;
/** The transfer fee of the test stack (TRANSFER_FEE_FLAT_KES default). */
export const FEE_KES = '25.00';
export const WEBHOOK_WAIT_MS = 30_000;

export interface PayoutsPartner {
  partner: TestPartner;
  http: PartnerHttpClient;
  receiver: HttpsReceiver;
}

export interface PartnerSetup {
  fundKes?: string;
  dailyCapKes?: string;
  withAdmin?: boolean;
}

/** A fresh partner: an administrator to receive codes, a funded KES balance and a webhook endpoint. */
export async function payoutsPartner(setup: PartnerSetup = {}): Promise<PayoutsPartner> {
  const domain = `t${randomUUID().slice(0, 8)}.example.com`;
  const cap = setup.dailyCapKes ?? '50000000.00';
  const partner = await createTestPartner({
    adminDomain: domain,
    rateLimitPerMinute: TEST_RATE_LIMIT_PER_MINUTE,
    extraArgs: ['--daily-cap-kes', cap, '--per-order-cap-kes', cap],
  });
  const http = new PartnerHttpClient(partner);
  if (setup.withAdmin !== false) {
    const admin = await http.post('/v1/admins', { email: `treasurer@${domain}`, name: 'Treasurer' });
    if (admin.status !== 201) throw new Error(`admin answered ${admin.status}: ${admin.text}`);
  }
  if (setup.fundKes) {
    const credit = await http.post('/v1/sandbox/kes-credits', { amount: setup.fundKes });
    if (credit.status !== 201) throw new Error(`credit answered ${credit.status}: ${credit.text}`);
  }
  const receiver = await startHttpsReceiver();
  await setPartnerWebhook(partner.partnerId, receiver.url);
  return { partner, http, receiver };
}

/** The partner of a describe block's tests: made before them (payoutsPartner), its receiver closed after them. */
export function partnerOfBlock(setup: PartnerSetup): PayoutsPartner {
  const ctx = {} as PayoutsPartner;
  beforeAll(async () => {
    Object.assign(ctx, await payoutsPartner(setup));
  });
  afterAll(() => ctx.receiver?.close());
  return ctx;
}

export function transferBody(overrides: Record<string, unknown> = {}) {
  return {
    rail: 'mobile_money',
    destination: { accountNumber: '254712345678', accountName: 'Jane Wanjiru' },
    amount: { currency: 'KES', value: '100.00' },
    idempotencyKey: `key-${randomUUID()}`,
    ...overrides,
  };
}

/** The newest code sent for `subjectId`, once it is there (recorded so the log scan proves it never leaked). */
export async function latestCode(http: PartnerHttpClient, subjectId: string, issued = 1): Promise<string> {
  return waitFor(
    async () => {
      const outbox = await http.get('/v1/sandbox/outbox');
      const entries = (outbox.body as Array<{ subjectId: string; code: string | null }>).filter(
        (entry) => entry.subjectId === subjectId,
      );
      for (const entry of entries) recordSensitive(entry.code);
      return entries.length >= issued && entries[0].code ? entries[0].code : undefined;
    },
    { what: `confirmation code ${issued} for ${subjectId}` },
  );
}

export async function kesBalance(http: PartnerHttpClient): Promise<{ available: string; held: string }> {
  const balances = await http.get('/v1/balances');
  return (balances.body as Array<{ currency: string; available: string; held: string }>).find(
    (balance) => balance.currency === 'KES',
  )!;
}

export async function transferReaches(http: PartnerHttpClient, transferId: string, status: string) {
  return waitFor(
    async () => {
      const read = await http.get(`/v1/transfers/${transferId}`);
      return read.body.status === status ? read.body : undefined;
    },
    { what: `transfer ${transferId} ${status}`, timeoutMs: 30_000 },
  );
}

/** The webhook event of `type` about `subjectId`, once delivered. */
export async function eventFor(
  receiver: HttpsReceiver,
  type: string,
  subjectId: string,
): Promise<{ type: string; data: Record<string, unknown> }> {
  return waitFor(
    () => {
      const found = receiver.requests
        .map((request) => JSON.parse(request.body))
        .find((event) => event.type === type && JSON.stringify(event.data).includes(subjectId));
      return found ?? undefined;
    },
    { what: `${type} for ${subjectId}`, timeoutMs: WEBHOOK_WAIT_MS },
  );
}

export function minus(a: string, b: string): string {
  return new Big(a).minus(b).toFixed(2);
}
