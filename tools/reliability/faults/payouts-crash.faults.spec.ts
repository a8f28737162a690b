// Proves a KES transfer survives the payouts service dying between the
// confirmation and the bank's answer: the service is killed with SIGKILL while
// the instruction is with the sandbox bank (its account name carries the
// NOANSWER magic value, so the bank takes the submission without answering and
// the instruction waits for its lease), then the stack is started again. The
// restarted service asks the bank again with the same reference, the transfer
// settles exactly once (one debit of amount + fee, one transfer.settled
// webhook), nothing is left held, nothing is listed as stuck and the ledger
// reconciles. Runs in the serial faults project (it kills a service).
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import {
  createTestPartner,
  HttpsReceiver,
  PartnerHttpClient,
  runOps,
  sandboxCode,
  stackInfra,
  startHttpsReceiver,
  waitFor,
  setPartnerWebhook,
} from '@platform/testing';
import { sleep } from '../test/support';
import { killEveryReplica } from './kill-support';

const RATE_LIMIT_PER_MINUTE = 100_000;
const RECOVERY_TIMEOUT_MS = 60_000;
/** Time a second, unwanted webhook would have had to arrive. */
const DUPLICATE_GRACE_MS = 3_000;
const AMOUNT_KES = '300.00';
/** The test stack's flat transfer fee (TRANSFER_FEE_FLAT_KES default). */
const FEE_KES = '25.00';

let client: PartnerHttpClient;
let receiver: HttpsReceiver;

beforeAll(async () => {
  const domain = `crash-${randomUUID().slice(0, 8)}.example.com`;
  const partner = await createTestPartner({ adminDomain: domain, rateLimitPerMinute: RATE_LIMIT_PER_MINUTE });
  client = new PartnerHttpClient(partner);
  receiver = await startHttpsReceiver();
  await setPartnerWebhook(partner.partnerId, receiver.url);
  expect((await client.post('/v1/admins', { email: `ops@${domain}`, name: 'Ops' })).status).toBe(201);
  expect((await client.post('/v1/sandbox/kes-credits', { amount: '1000.00' })).status).toBe(201);
});

afterAll(async () => {
  await stackInfra.startServices();
  await receiver?.close();
});

async function kesBalance(): Promise<{ available: string; held: string }> {
  const balances = await client.get('/v1/balances');
  return balances.body.find((balance: { currency: string }) => balance.currency === 'KES');
}

async function confirmedTransfer(): Promise<string> {
  const created = await client.post('/v1/transfers', {
    rail: 'mobile_money',
    destination: { accountNumber: '254733333333', accountName: 'NOANSWER Crash Payee' },
    amount: { currency: 'KES', value: AMOUNT_KES },
    idempotencyKey: `crash-${randomUUID()}`,
  });
  expect(created.status).toBe(202);
  const code = await sandboxCode(client.sdk, created.body.id);
  expect((await client.post(`/v1/confirmations/${created.body.confirmation.id}`, { code })).status).toBe(200);
  return created.body.id;
}

describe('payouts killed between confirmation and the bank answer', () => {
  it('settles the transfer exactly once after a restart, with nothing held or stuck', async () => {
    const before = await kesBalance();
    const transferId = await confirmedTransfer();
    // The runner takes the instruction at once; the sandbox bank does not answer this first submission.
    await sleep(500);
    await killEveryReplica('payouts');
    await stackInfra.startServices();

    const settled = await waitFor(
      async () => {
        const read = await client.get(`/v1/transfers/${transferId}`);
        return read.body.status === 'settled' ? read.body : undefined;
      },
      { timeoutMs: RECOVERY_TIMEOUT_MS, what: 'the transfer settled after the restart' },
    );
    expect(settled.failureCode).toBeNull();

    const after = await kesBalance();
    expect(new Big(before.available).minus(after.available).toFixed(2)).toBe(
      new Big(AMOUNT_KES).plus(FEE_KES).toFixed(2),
    );
    expect(after.held).toBe(before.held);

    await waitFor(() => receiver.requests.some((request) => request.body.includes(transferId)) || undefined, {
      timeoutMs: RECOVERY_TIMEOUT_MS,
      what: 'transfer.settled',
    });
    await sleep(DUPLICATE_GRACE_MS);
    const events = receiver.requests
      .map((request) => JSON.parse(request.body))
      .filter((event) => event.data?.transferId === transferId);
    expect(events.map((event) => event.type)).toEqual(['transfer.settled']);

    // Exits 0 only when no instruction is stuck.
    const stuck = await runOps<{ instructions: unknown[] }>(['payouts', 'stuck']);
    expect(stuck.instructions).toEqual([]);
    const check = await runOps<{ ok: boolean }>(['ledger', 'check']);
    expect(check.ok).toBe(true);
  });
});
