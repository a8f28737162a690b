// Proves the platform survives its infrastructure failing, with nothing lost and
// nothing done twice. Runs in the `faults` jest project, after the integration
// project and alone (--runInBand): it stops the test stack's own Redis,
// PostgreSQL and RabbitMQ and kills its services, so nothing else may run then.
// - Redis down: the gateway fails closed (503) for signed requests, never lets an
//   unsigned or replayed request through, and recovers when Redis returns; a
//   nonce used before the outage is still refused after it.
// - PostgreSQL restarted under load: requests in flight answer or fail cleanly
//   (503 envelope, never 500), the services reconnect, and retrying every credit
//   with its bank transaction id books each exactly once.
// - RabbitMQ stopped mid-flow: a KES credit made while it is down is delivered as
//   one webhook after it returns.
// - The ledger killed with SIGKILL mid-request and restarted: no half-written
//   credit (each credit is whole or absent, retries book it once), the ledger
//   reconciles, and its outbox relay resumes (a later credit's webhook arrives).
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createLogger } from '@platform/logger';
import { ledger } from '@platform/proto';
import {
  createTestPartner,
  HttpResult,
  HttpsReceiver,
  loadTestStack,
  PartnerHttpClient,
  stackInfra,
  startHttpsReceiver,
  TestPartner,
  waitFor,
  clientAs,
  setPartnerWebhook,
} from '@platform/testing';
import { expectEnvelope, sleep } from '../test/support';

const RATE_LIMIT_PER_MINUTE = 100_000;
const RECOVERY_TIMEOUT_MS = 60_000;
const RECOVERY_POLL_MS = 250;
const WEBHOOK_WAIT_MS = 60_000;
/** Time a second, unwanted webhook would have had to arrive. */
const DUPLICATE_GRACE_MS = 3_000;
const CREDITS_IN_FLIGHT = 12;
const CREDIT_AMOUNT_KES = '1.00';
const FAULT_DELAY_MS = 30;

const logger = createLogger('reliability-faults', 'error');
let partner: TestPartner;
let client: PartnerHttpClient;
let receiver: HttpsReceiver;
let ledgerPool: Pool;
// Reads accounts and books credits as payouts' mobile-money credits do.
const ledgerClient = () => clientAs('payouts', ledger.LedgerService, { upstream: 'ledger', logger });

beforeAll(async () => {
  partner = await createTestPartner({ rateLimitPerMinute: RATE_LIMIT_PER_MINUTE });
  client = new PartnerHttpClient(partner);
  receiver = await startHttpsReceiver();
  await setPartnerWebhook(partner.partnerId, receiver.url);
  ledgerPool = new Pool({ connectionString: loadTestStack().databases.ledger, max: 1 });
});

afterAll(async () => {
  // Whatever a failed test left stopped is started again (each is a no-op when running).
  await stackInfra.startRedis();
  await stackInfra.startPostgres();
  await stackInfra.startRabbit();
  await stackInfra.startServices();
  await receiver?.close();
  await ledgerPool?.end();
});

async function kesBalance(): Promise<string> {
  const result = await client.get('/v1/balances');
  if (result.status !== 200) throw new Error(`balances: ${result.status} ${result.text}`);
  return (result.body as Array<{ currency: string; available: string }>).find((balance) => balance.currency === 'KES')!
    .available;
}

function cents(amount: string): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2));
}

async function untilServing(path = '/v1/balances'): Promise<void> {
  await waitFor(async () => ((await client.get(path)).status === 200 ? true : undefined), {
    timeoutMs: RECOVERY_TIMEOUT_MS,
    intervalMs: RECOVERY_POLL_MS,
    what: `${path} to answer 200 again`,
  });
}

/** A credit the bank would send: same bank transaction id, same request on every retry. */
async function creditCommand(): Promise<ledger.RecordKesCreditRequest> {
  const accounts = await ledgerClient().getPartnerAccounts({ partnerId: partner.partnerId });
  return {
    bankTransactionId: `FAULT-${randomUUID()}`,
    accountReference: accounts.kesAccountReference,
    amountKes: CREDIT_AMOUNT_KES,
    rail: 'mobile_money_paybill',
    receivedAt: new Date().toISOString(),
  };
}

/** The double-entry invariants, read straight from the ledger's database. */
async function expectLedgerBalanced(): Promise<void> {
  const currencies = await ledgerPool.query('SELECT currency FROM accounts GROUP BY currency HAVING sum(posted) <> 0');
  expect(currencies.rows).toEqual([]);
  const entries = await ledgerPool.query(
    'SELECT entry_id FROM postings GROUP BY entry_id, currency HAVING sum(amount) <> 0',
  );
  expect(entries.rows).toEqual([]);
}

/** Each credit booked exactly once: its bank transaction id has one kes_credits row and one entry. */
async function expectBookedOnce(commands: ledger.RecordKesCreditRequest[]): Promise<void> {
  const ids = commands.map((command) => command.bankTransactionId);
  const credits = await ledgerPool.query<{ n: string }>(
    'SELECT count(*)::text AS n FROM kes_credits WHERE bank_transaction_id = ANY($1)',
    [ids],
  );
  const entries = await ledgerPool.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM entries WHERE metadata->>'bankTransactionId' = ANY($1)`,
    [ids],
  );
  expect(Number(credits.rows[0].n)).toBe(ids.length);
  expect(Number(entries.rows[0].n)).toBe(ids.length);
}

function expectAnsweredOrUnavailable(result: HttpResult, context: string): void {
  if (result.status === 200 || result.status === 201) return;
  expect({ context, status: result.status }).toEqual({ context, status: 503 });
  expectEnvelope(result, context);
}

describe('Redis down', () => {
  it('fails closed with 503, lets no unsigned or replayed request through, and recovers', async () => {
    let captured: Record<string, string> = {};
    const before = await client.get('/v1/balances', { tamper: (headers) => (captured = { ...headers }) });
    expect(before.status).toBe(200);
    const replay = () => client.get('/v1/balances', { tamper: () => captured });
    await stackInfra.stopRedis();
    try {
      for (const path of ['/v1/health', '/v1/balances']) {
        const refused = await client.get(path);
        expect({ path, status: refused.status }).toEqual({ path, status: 503 });
        expectEnvelope(refused, `signed GET ${path} with Redis down`);
      }
      const write = await client.post('/v1/sandbox/kes-credits', { amount: '5.00' });
      expect(write.status).toBe(503);
      expect((await client.get('/v1/balances', { unsigned: true })).status).toBe(401);
      expect((await replay()).status).toBe(503);
    } finally {
      await stackInfra.startRedis();
    }
    await untilServing();
    // Redis keeps its nonces across the restart (append-only file): the old request stays spent.
    expect((await replay()).status).toBe(401);
    expect(await kesBalance()).toBe(
      JSON.parse(before.text).find((balance: { currency: string }) => balance.currency === 'KES').available,
    );
  });
});

describe('PostgreSQL restarted', () => {
  it('fails requests in flight cleanly, reconnects, and books every retried credit exactly once', async () => {
    const startBalance = await kesBalance();
    const commands = await Promise.all(Array.from({ length: CREDITS_IN_FLIGHT }, () => creditCommand()));
    const grpc = ledgerClient();
    const credits = commands.map((command, index) =>
      sleep(index * FAULT_DELAY_MS)
        .then(() => grpc.recordKesCredit(command))
        .then(
          () => 'ok',
          (error: { code?: string }) => error.code ?? 'error',
        ),
    );
    const reads = Array.from({ length: CREDITS_IN_FLIGHT }, (_, index) =>
      sleep(index * FAULT_DELAY_MS).then(() => client.get('/v1/balances')),
    );
    await sleep(FAULT_DELAY_MS * 2);
    await stackInfra.stopPostgres();
    try {
      const during = await client.get('/v1/balances');
      expectAnsweredOrUnavailable(during, 'GET /v1/balances with PostgreSQL down');
      for (const [index, read] of (await Promise.all(reads)).entries())
        expectAnsweredOrUnavailable(read, `read ${index} in flight`);
      await Promise.all(credits);
    } finally {
      await stackInfra.startPostgres();
    }
    await untilServing();
    // The bank retries every credit it is not sure of; the ledger books each once.
    await retryEachCreditUntilBookedOnce(grpc, commands, startBalance, 'the ledger to take a retried credit');
  });
});

/**
 * Retries every credit until the ledger takes it, as the bank does with a credit it is not sure of;
 * then each is booked exactly once, the balance grew by all of them and the ledger balances.
 */
async function retryEachCreditUntilBookedOnce(
  grpc: ReturnType<typeof ledgerClient>,
  commands: ledger.RecordKesCreditRequest[],
  startBalance: string,
  what: string,
): Promise<void> {
  for (const command of commands)
    await waitFor(
      () =>
        grpc.recordKesCredit(command).then(
          () => true,
          () => undefined,
        ),
      { timeoutMs: RECOVERY_TIMEOUT_MS, what },
    );
  await expectBookedOnce(commands);
  expect(cents(await kesBalance())).toBe(cents(startBalance) + BigInt(CREDITS_IN_FLIGHT) * cents(CREDIT_AMOUNT_KES));
  await expectLedgerBalanced();
}

function webhooksNaming(id: string) {
  return receiver.requests.filter((request) => request.body.includes(id));
}

async function expectOneWebhook(id: string): Promise<void> {
  await waitFor(() => (webhooksNaming(id).length > 0 ? true : undefined), {
    timeoutMs: WEBHOOK_WAIT_MS,
    what: `the webhook for ${id}`,
  });
  await sleep(DUPLICATE_GRACE_MS);
  expect(webhooksNaming(id).map((request) => JSON.parse(request.body).type)).toEqual(['credit.received']);
}

describe('RabbitMQ stopped mid-flow', () => {
  it('delivers a credit made while it is down as one webhook after it returns', async () => {
    await stackInfra.stopRabbit();
    let transactionId: string;
    try {
      const credit = await client.post('/v1/sandbox/kes-credits', { amount: '7.00' });
      expect(credit.status).toBe(201);
      transactionId = credit.body.transactionId;
      await sleep(DUPLICATE_GRACE_MS);
      expect(webhooksNaming(transactionId)).toEqual([]);
    } finally {
      await stackInfra.startRabbit();
    }
    await expectOneWebhook(transactionId);
  });
});

describe('the ledger killed with SIGKILL mid-request', () => {
  it('leaves no half-written credit, books each retried credit once, and its outbox relay resumes', async () => {
    const startBalance = await kesBalance();
    const commands = await Promise.all(Array.from({ length: CREDITS_IN_FLIGHT }, () => creditCommand()));
    const grpc = ledgerClient();
    const credits = commands.map((command, index) =>
      sleep(index * FAULT_DELAY_MS)
        .then(() => grpc.recordKesCredit(command))
        .then(
          () => 'ok',
          () => 'failed',
        ),
    );
    await sleep(FAULT_DELAY_MS * 3);
    await stackInfra.killService('ledger');
    await Promise.all(credits);
    // Whole or absent: no credit row without its entry, no entry without its credit row.
    const ids = commands.map((command) => command.bankTransactionId);
    const halves = await ledgerPool.query(
      `SELECT c.bank_transaction_id FROM kes_credits c FULL JOIN entries e ON e.id = c.entry_id
      WHERE (c.bank_transaction_id = ANY($1) OR e.metadata->>'bankTransactionId' = ANY($1)) AND (c.entry_id IS NULL OR e.id IS NULL)`,
      [ids],
    );
    expect(halves.rows).toEqual([]);
    await stackInfra.startServices();
    await untilServing();
    await retryEachCreditUntilBookedOnce(grpc, commands, startBalance, 'the restarted ledger to take a retried credit');
    const after = await client.post('/v1/sandbox/kes-credits', { amount: '3.00' });
    expect(after.status).toBe(201);
    await expectOneWebhook(after.body.transactionId);
  });
});
