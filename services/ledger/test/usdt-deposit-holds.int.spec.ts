// Proves the ledger attributes USDT deposits from the expectations trading registers, asking no
// service: calling ExpectUsdtDeposit as trading would, against the stack's ledger, a deposit arriving
// while the partner has an open expectation without a hash is held in suspense (balance unchanged, no
// event) until that expectation's send-before, then credited by the sweeper with one usdt_credit.received;
// registering the hash of a held deposit claims it for that order only (concurrent orders naming the same
// hash: one wins, the rest are LEDGER_ID_REUSED; the same registration again answers the claim) and it is
// never credited; a deposit whose hash an open expectation names is claimed on arrival; a closed
// expectation claims nothing and answers open: false; bad registrations are refused. The ledger balances
// after each.
import { randomBytes, randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import { PromiseClient } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { ledger } from '@platform/proto';
import {
  createTestPartner,
  HttpsReceiver,
  routedClient,
  runOps,
  startHttpsReceiver,
  TestPartner,
  waitFor,
} from '@platform/testing';
import { LEDGER_ACCESS } from '../src/grpc/access';
import { codeOf, useLedgerSpec } from './ledger-support';

const logger = createLogger('ledger-deposit-holds-test', 'error');
const SHORT_WINDOW_MS = 2_000;
const LONG_WINDOW_MS = 120_000;
const CREDIT_WAIT_MS = 15_000;
const WEBHOOK_WAIT_MS = 30_000;
const newHash = () => randomBytes(32).toString('hex');
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('USDT deposits attributed from registered expectations', () => {
  const spec = useLedgerSpec();
  let sandbox: PromiseClient<typeof ledger.LedgerSandboxService>;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    sandbox = routedClient(ledger.LedgerSandboxService, LEDGER_ACCESS.LEDGER_SANDBOX, { upstream: 'ledger', logger });
    receiver = await startHttpsReceiver();
  });

  afterAll(async () => {
    sandbox?.close();
    await receiver?.close();
  });

  /** A partner of its own per test: its expectations are the only ones the ledger consults. */
  async function partnerWithWebhooks(): Promise<TestPartner> {
    const partner = await createTestPartner();
    await runOps([
      'webhook',
      'set',
      '--partner',
      partner.partnerId,
      '--url',
      receiver.url,
      '--secret',
      `whsec_${randomBytes(24).toString('hex')}`,
    ]);
    return partner;
  }

  const usdtAvailable = async (partner: TestPartner) => {
    const { balances } = await spec.client.getBalances({ partnerId: partner.partnerId });
    return balances.find((balance) => balance.currency === 'USDT')!.available;
  };
  const deposit = (partner: TestPartner, txHash: string, usdtAmount: string) =>
    sandbox.simulateUsdtDeposit({ partnerId: partner.partnerId, txHash, usdtAmount });
  const webhooksFor = (activityId: string) => receiver.requests.filter((request) => request.body.includes(activityId));
  const statusOf = async (txHash: string) =>
    (await spec.pool.query('SELECT status FROM usdt_deposits WHERE tx_hash = $1', [txHash])).rows[0]?.status;

  it('holds a deposit until the send-before of an order without a hash, then credits it with one event', async () => {
    const partner = await partnerWithWebhooks();
    const before = await usdtAvailable(partner);
    const sendBefore = inMs(SHORT_WINDOW_MS);
    const orderId = randomUUID();
    expect(await spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId, sendBefore })).toMatchObject({
      orderId,
      open: true,
    });
    const txHash = newHash();
    const held = await deposit(partner, txHash, '42.000001');
    expect(held).toMatchObject({ status: 'held_for_attribution', usdtAmount: '42.000001', holdUntil: sendBefore });
    expect(await usdtAvailable(partner)).toBe(before);
    expect(await deposit(partner, txHash, '42.000001')).toEqual(held);

    await waitFor(async () => (await statusOf(txHash)) === 'credited' || undefined, {
      timeoutMs: CREDIT_WAIT_MS,
      what: 'the held deposit to be credited',
    });
    expect(await usdtAvailable(partner)).toBe(new Big(before).plus('42.000001').toFixed(6));
    await waitFor(() => webhooksFor(held.depositId).length > 0 || undefined, {
      timeoutMs: WEBHOOK_WAIT_MS,
      what: 'usdt_credit.received',
    });
    expect(JSON.parse(webhooksFor(held.depositId)[0].body)).toMatchObject({
      type: 'usdt_credit.received',
      data: { activityId: held.depositId, amount: { currency: 'USDT', value: '42.000001' } },
    });
    // The window has passed: the hash registered now claims nothing, and the expectation is closed.
    const late = await spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId, sendBefore, txHash });
    expect(late).toMatchObject({ open: false, txHash });
    expect(late.deposit).toBeUndefined();
  });

  it('lets exactly one order claim a held deposit by registering its hash, which is then never credited', async () => {
    const partner = await partnerWithWebhooks();
    const sendBefore = inMs(LONG_WINDOW_MS);
    const orders = [randomUUID(), randomUUID(), randomUUID()];
    for (const orderId of orders)
      await spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId, sendBefore });
    const txHash = newHash();
    const before = await usdtAvailable(partner);
    expect((await deposit(partner, txHash, '5.5')).status).toBe('held_for_attribution');

    const outcomes = await Promise.allSettled(
      orders.map((orderId) =>
        spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId, sendBefore, txHash }),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const claim = (won[0] as PromiseFulfilledResult<ledger.UsdtDepositExpectation>).value;
    expect(claim.deposit).toMatchObject({ status: 'claimed', orderId: claim.orderId, usdtAmount: '5.500000' });
    for (const lost of outcomes.filter((outcome) => outcome.status === 'rejected'))
      expect(await codeOf(Promise.reject((lost as PromiseRejectedResult).reason))).toBe('LEDGER_ID_REUSED');
    expect(
      await spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId: claim.orderId, sendBefore, txHash }),
    ).toEqual(claim);
    expect(await usdtAvailable(partner)).toBe(before);
    const rows = await spec.pool.query('SELECT status, hold_until, order_id FROM usdt_deposits WHERE tx_hash = $1', [
      txHash,
    ]);
    expect(rows.rows).toEqual([{ status: 'claimed', hold_until: null, order_id: claim.orderId }]);
  });

  it('claims a deposit on arrival for the open order that registered its hash; another partner naming it gets nothing', async () => {
    const partner = await partnerWithWebhooks();
    const squatter = await createTestPartner();
    const sendBefore = inMs(LONG_WINDOW_MS);
    const txHash = newHash();
    const squatterOrder = randomUUID();
    await spec.client.expectUsdtDeposit({ partnerId: squatter.partnerId, orderId: squatterOrder, sendBefore, txHash });
    const orderId = randomUUID();
    await spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId, sendBefore, txHash });
    const before = await usdtAvailable(partner);
    expect(await deposit(partner, txHash, '7')).toMatchObject({ status: 'claimed', orderId });
    expect(await usdtAvailable(partner)).toBe(before);
    const answer = await spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId, sendBefore });
    expect(answer).toMatchObject({
      open: true,
      txHash,
      deposit: { status: 'claimed', orderId, usdtAmount: '7.000000' },
    });
    const squatted = await spec.client.expectUsdtDeposit({
      partnerId: squatter.partnerId,
      orderId: squatterOrder,
      sendBefore,
      txHash,
    });
    expect(squatted.deposit).toBeUndefined();
  });

  it('credits at once when no expectation is open, and refuses registrations that contradict the first', async () => {
    const partner = await partnerWithWebhooks();
    const orderId = randomUUID();
    const closed = inMs(-1_000);
    expect(
      await spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId, sendBefore: closed }),
    ).toMatchObject({ open: false });
    expect((await deposit(partner, newHash(), '1.25')).status).toBe('credited');

    const reused = (request: Partial<ledger.ExpectUsdtDepositRequest>) =>
      codeOf(spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId, sendBefore: closed, ...request }));
    expect(await reused({ sendBefore: inMs(60_000) })).toBe('LEDGER_ID_REUSED');
    expect(await reused({ partnerId: (await createTestPartner()).partnerId })).toBe('LEDGER_ID_REUSED');
    const hash = newHash();
    await spec.client.expectUsdtDeposit({ partnerId: partner.partnerId, orderId, sendBefore: closed, txHash: hash });
    expect(await reused({ txHash: newHash() })).toBe('LEDGER_ID_REUSED');
    expect(await reused({ orderId: randomUUID(), txHash: hash })).toBe('LEDGER_ID_REUSED');
    expect(await reused({ orderId: 'not-a-uuid', sendBefore: 'soon', txHash: 'AB' })).toBe('VALIDATION_FAILED');
  });
});
