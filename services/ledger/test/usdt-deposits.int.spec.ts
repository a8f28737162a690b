// Proves, through the gateway, that a sandbox USDT deposit to the partner's address (no sell order of
// the partner expects one) credits its USDT balance at once and delivers one signed
// usdt_credit.received to its HTTPS endpoint; that the chain notifying the same hash again (also
// concurrently) credits once; that a deposit not held cannot be claimed by an order; that bad input and a
// partner without an address are refused; and that the ledger still balances.
import { randomBytes } from 'node:crypto';
import { Big } from '@platform/money';
import {
  createTestPartner,
  HttpsReceiver,
  PartnerHttpClient,
  startHttpsReceiver,
  TestPartner,
  waitFor,
  setPartnerWebhook,
} from '@platform/testing';
import { codeOf, useLedgerSpec } from './ledger-support';

const WEBHOOK_WAIT_MS = 30_000;
const newHash = () => randomBytes(32).toString('hex');

describe('USDT deposits', () => {
  const spec = useLedgerSpec();
  let partner: TestPartner;
  let http: PartnerHttpClient;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    partner = await createTestPartner();
    http = new PartnerHttpClient(partner);
    receiver = await startHttpsReceiver();
    await setPartnerWebhook(partner.partnerId, receiver.url);
  });

  afterAll(async () => {
    await receiver.close();
  });

  const usdtBalance = async () => {
    const response = await http.get('/v1/balances');
    return response.body.find((balance: { currency: string }) => balance.currency === 'USDT');
  };

  it('credits the USDT balance at once and delivers one usdt_credit.received', async () => {
    const txHash = newHash();
    const response = await http.post('/v1/sandbox/usdt-deposits', { txHash: `0x${txHash}`, usdtAmount: '125.5' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      activityId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      txHash,
      amount: { currency: 'USDT', value: '125.500000' },
      status: 'credited',
      receivedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect((await usdtBalance()).available).toBe('125.500000');

    const [request] = await receiver.waitForRequests(1, WEBHOOK_WAIT_MS);
    if (!request) throw new Error('no webhook received');
    const body = JSON.parse(request.body);
    expect(body.type).toBe('usdt_credit.received');
    expect(body.data).toEqual({
      activityId: response.body.activityId,
      amount: { currency: 'USDT', value: '125.500000' },
      receivedAt: response.body.receivedAt,
    });
    expect(request.body).not.toContain(txHash);
  });

  it('credits once when the chain notifies the same hash repeatedly and concurrently', async () => {
    const before = await usdtBalance();
    const txHash = newHash();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => http.post('/v1/sandbox/usdt-deposits', { txHash, usdtAmount: '10.000001' })),
    );
    expect(new Set(results.map((result) => result.body.activityId)).size).toBe(1);
    expect(results.every((result) => result.status === 201)).toBe(true);
    const after = await usdtBalance();
    expect(new Big(after.available).minus(before.available).toFixed(6)).toBe('10.000001');
    const rows = await spec.pool.query('SELECT count(*)::int AS n FROM usdt_deposits WHERE tx_hash = $1', [txHash]);
    expect(rows.rows[0].n).toBe(1);
    await waitFor(
      () =>
        receiver.requests.filter((request) => request.body.includes(results[0].body.activityId)).length === 1 ||
        undefined,
      { timeoutMs: WEBHOOK_WAIT_MS, what: 'the one webhook of the repeated deposit' },
    );
  });

  it('lets no order claim a deposit already credited to the balance', async () => {
    const txHash = newHash();
    await http.post('/v1/sandbox/usdt-deposits', { txHash, usdtAmount: '1' });
    const orderId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
    expect(await codeOf(spec.client.claimUsdtDeposit({ txHash, partnerId: partner.partnerId, orderId }))).toBe(
      'LEDGER_DEPOSIT_NOT_CLAIMABLE',
    );
    const stranger = await createTestPartner();
    expect(await codeOf(spec.client.claimUsdtDeposit({ txHash, partnerId: stranger.partnerId, orderId }))).toBe(
      'LEDGER_DEPOSIT_NOT_FOUND',
    );
  });

  it.each([
    [{ txHash: 'AB'.repeat(32), usdtAmount: '1' }, 'txHash'],
    [{ txHash: 'ab'.repeat(31), usdtAmount: '1' }, 'txHash'],
    [{ txHash: 'ab'.repeat(32), usdtAmount: '0.0000001' }, 'usdtAmount'],
    [{ txHash: 'ab'.repeat(32), usdtAmount: '0' }, 'usdtAmount'],
    [{ txHash: 'ab'.repeat(32), usdtAmount: 1 }, 'usdtAmount'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await http.post('/v1/sandbox/usdt-deposits', body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, message: `Validation failed on: ${field}` });
  });

  it('refuses a partner without a deposit address', async () => {
    const bare = await createTestPartner({ extraArgs: ['--deposit-address', 'none'] });
    const response = await new PartnerHttpClient(bare).post('/v1/sandbox/usdt-deposits', {
      txHash: newHash(),
      usdtAmount: '1',
    });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ message: 'USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED' });
  });
});
