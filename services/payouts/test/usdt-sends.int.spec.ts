// Proves USDT sends through the gateway against the real stack: create (202,
// a hold on the USDT balance, a code) → confirm → the sandbox custodian sends
// (hold posted, usdt_send.settled with the spec's data); the wallet is asked
// again at release (revoked meanwhile: failed, hold voided before
// usdt_send.failed); the custodian refusing (amount ending 13) fails the send
// the same way; the refusals at create (shape, minimum, per-send cap, unknown
// or inactive wallet, balance, no live rate for the shared daily cap) hold
// nothing; a lapsed code expires the send with confirmation.expired
// (subjectType usdt_send); replays answer the original; unknown ids are 404.
import { randomBytes, randomUUID } from 'node:crypto';
import { tronAddressFromAccountId } from '@platform/chain';
import { UUID_PATTERN } from '@platform/ids';
import { Big } from '@platform/money';
import { loadTestStack, PartnerHttpClient, partnerWallet, waitFor } from '@platform/testing';
import { eventFor, ISO_MS, latestCode, payoutsPartner, PayoutsPartner } from './support';

async function usdtBalance(http: PartnerHttpClient): Promise<{ available: string; held: string }> {
  const balances = await http.get('/v1/balances');
  return (balances.body as Array<{ currency: string; available: string; held: string }>).find(
    (balance) => balance.currency === 'USDT',
  )!;
}

async function sendReaches(http: PartnerHttpClient, sendId: string, status: string) {
  return waitFor(
    async () => {
      const read = await http.get(`/v1/usdt/sends/${sendId}`);
      return read.body.status === status ? read.body : undefined;
    },
    { what: `send ${sendId} ${status}`, timeoutMs: 30_000 },
  );
}

describe('USDT sends', () => {
  let ctx: PayoutsPartner;
  let walletId: string;

  beforeAll(async () => {
    ctx = await payoutsPartner();
    const deposit = await ctx.http.post('/v1/sandbox/usdt-deposits', {
      txHash: randomBytes(32).toString('hex'),
      usdtAmount: '1000.000000',
    });
    expect(deposit.status).toBe(201);
    expect((await ctx.http.post('/v1/sandbox/rates', { bid: '128.0000', ask: '130.0000' })).status).toBe(200);
    walletId = await partnerWallet(ctx.http);
  });

  afterAll(() => ctx.receiver.close());

  const sendBody = (overrides: Record<string, unknown> = {}) => ({
    destinationWalletId: walletId,
    usdtAmount: '10.500000',
    idempotencyKey: `send-${randomUUID()}`,
    ...overrides,
  });

  async function confirm(send: { id: string; confirmation: { id: string } }): Promise<void> {
    const code = await latestCode(ctx.http, send.id);
    expect((await ctx.http.post(`/v1/confirmations/${send.confirmation.id}`, { code })).status).toBe(200);
  }

  it('creates, confirms and settles a send, posting the hold once', async () => {
    const before = await usdtBalance(ctx.http);
    const body = sendBody({ partnerReference: 'PAYOUT-7' });
    const created = await ctx.http.post('/v1/usdt/sends', body);
    expect(created.status).toBe(202);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID_PATTERN),
      status: 'awaiting_confirmation',
      destinationWalletId: walletId,
      usdtAmount: '10.500000',
      partnerReference: 'PAYOUT-7',
      failureReason: null,
      createdAt: expect.stringMatching(ISO_MS),
      confirmedAt: null,
      confirmation: {
        id: expect.stringMatching(UUID_PATTERN),
        channel: 'email',
        deliveredTo: expect.stringContaining('***@'),
        expiresAt: expect.stringMatching(ISO_MS),
        resendAvailableAt: expect.stringMatching(ISO_MS),
      },
      settledAt: null,
      idempotencyKey: body.idempotencyKey,
    });
    expect(new Big((await usdtBalance(ctx.http)).held).minus(before.held).toFixed(6)).toBe('10.500000');
    const replay = await ctx.http.post('/v1/usdt/sends', body);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(created.body.id);
    expect((await ctx.http.post('/v1/usdt/sends', { ...body, usdtAmount: '10.600000' })).body.message).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );

    await confirm(created.body);
    const settled = await sendReaches(ctx.http, created.body.id, 'settled');
    expect(settled.confirmedAt).toMatch(ISO_MS);
    const after = await usdtBalance(ctx.http);
    expect(after.held).toBe(before.held);
    expect(new Big(before.available).minus(after.available).toFixed(6)).toBe('10.500000');
    const event = await eventFor(ctx.receiver, 'usdt_send.settled', created.body.id);
    expect(event.data).toEqual({
      sendId: created.body.id,
      partnerReference: 'PAYOUT-7',
      status: 'settled',
      amount: { currency: 'USDT', value: '10.500000' },
      destinationWalletId: walletId,
      failureReason: null,
    });
  });

  it('asks the wallet registry again at release: a wallet revoked meanwhile fails the send, hold voided', async () => {
    const doomed = await partnerWallet(ctx.http);
    const before = await usdtBalance(ctx.http);
    const created = await ctx.http.post('/v1/usdt/sends', sendBody({ destinationWalletId: doomed }));
    expect(created.status).toBe(202);
    expect((await ctx.http.request('DELETE', `/v1/wallets/${doomed}`)).status).toBe(204);
    await confirm(created.body);
    const failed = await sendReaches(ctx.http, created.body.id, 'failed');
    expect(failed.failureReason).toBe('USDT_SEND_DESTINATION_NOT_ACTIVE');
    expect(await usdtBalance(ctx.http)).toEqual(
      expect.objectContaining({ available: before.available, held: before.held }),
    );
    const event = await eventFor(ctx.receiver, 'usdt_send.failed', created.body.id);
    expect(event.data).toMatchObject({
      sendId: created.body.id,
      status: 'failed',
      failureReason: 'USDT_SEND_DESTINATION_NOT_ACTIVE',
    });
  });

  it('fails a send the custodian refuses, with the hold voided', async () => {
    const before = await usdtBalance(ctx.http);
    const created = await ctx.http.post('/v1/usdt/sends', sendBody({ usdtAmount: '5.000013' }));
    await confirm(created.body);
    const failed = await sendReaches(ctx.http, created.body.id, 'failed');
    expect(failed.failureReason).toBe('USDT_SEND_CHAIN_REJECTED');
    expect(await usdtBalance(ctx.http)).toEqual(
      expect.objectContaining({ available: before.available, held: before.held }),
    );
  });

  it.each([
    ['a malformed amount', { usdtAmount: '1.0000001' }, 400, 'Validation failed on: usdtAmount'],
    ['a malformed wallet id', { destinationWalletId: 'nope' }, 400, 'Validation failed on: destinationWalletId'],
    ['an amount below the minimum', { usdtAmount: '0.999999' }, 422, 'USDT_SEND_BELOW_MINIMUM'],
    ['an amount over the per-send cap', { usdtAmount: '100000.000001' }, 422, 'USDT_SEND_EXCEEDS_PER_SEND_CAP'],
    ['an unknown wallet', { destinationWalletId: '00000000-0000-4000-8000-000000000000' }, 404, 'WALLET_NOT_FOUND'],
    ['more than the balance', { usdtAmount: '5000.000000' }, 422, 'INSUFFICIENT_USDT_BALANCE'],
  ])('refuses %s, holding nothing', async (_what, overrides, status, message) => {
    const before = await usdtBalance(ctx.http);
    const refused = await ctx.http.post('/v1/usdt/sends', sendBody(overrides));
    expect(refused.status).toBe(status);
    expect(refused.body.message).toBe(message);
    expect(await usdtBalance(ctx.http)).toEqual(before);
  });

  it('refuses a wallet not yet active with 404 WALLET_NOT_FOUND', async () => {
    const pending = await ctx.http.post('/v1/wallets', {
      chain: 'tron',
      asset: 'USDT',
      address: tronAddressFromAccountId(randomBytes(20)),
    });
    const refused = await ctx.http.post('/v1/usdt/sends', sendBody({ destinationWalletId: pending.body.walletId }));
    expect(refused.status).toBe(404);
    expect(refused.body.message).toBe('WALLET_NOT_FOUND');
  });

  it('expires a lapsed code with confirmation.expired (usdt_send), giving the hold back', async () => {
    const before = await usdtBalance(ctx.http);
    const created = await ctx.http.post('/v1/usdt/sends', sendBody({ usdtAmount: '2.000000' }));
    expect(created.status).toBe(202);
    await latestCode(ctx.http, created.body.id);
    await sendReaches(ctx.http, created.body.id, 'expired');
    expect(await usdtBalance(ctx.http)).toEqual(before);
    const event = await eventFor(ctx.receiver, 'confirmation.expired', created.body.id);
    expect(event.data).toEqual({
      confirmationId: created.body.confirmation.id,
      subjectType: 'usdt_send',
      subjectId: created.body.id,
      expiredAt: expect.stringMatching(ISO_MS),
    });
  });

  it('answers 404 SEND_NOT_FOUND for unknown and malformed ids', async () => {
    for (const path of ['/v1/usdt/sends/00000000-0000-4000-8000-000000000000', '/v1/usdt/sends/nope']) {
      const read = await ctx.http.get(path);
      expect(read.status).toBe(404);
      expect(read.body.message).toBe('SEND_NOT_FOUND');
    }
  });

  it('refuses with 503 ORDER_DAILY_CAP_RATE_UNAVAILABLE when no live rate values the send for the daily cap', async () => {
    const halted = await payoutsPartner();
    try {
      await halted.http.post('/v1/sandbox/usdt-deposits', {
        txHash: randomBytes(32).toString('hex'),
        usdtAmount: '50.000000',
      });
      const wallet = await partnerWallet(halted.http);
      expect(
        (await halted.http.post('/v1/sandbox/rates', { bid: '128.0000', ask: '130.0000', halted: true })).status,
      ).toBe(200);
      const stalenessMs = Number(
        (loadTestStack() as { extraEnv?: Record<string, string> }).extraEnv?.RATE_STALENESS_LIMIT_MS ?? 60_000,
      );
      await new Promise((resolve) => setTimeout(resolve, stalenessMs + 750));
      const refused = await halted.http.post('/v1/usdt/sends', {
        destinationWalletId: wallet,
        usdtAmount: '5.000000',
        idempotencyKey: `send-${randomUUID()}`,
      });
      expect(refused.status).toBe(503);
      expect(refused.body.message).toBe('ORDER_DAILY_CAP_RATE_UNAVAILABLE');
      expect((await usdtBalance(halted.http)).held).toBe('0.000000');
    } finally {
      await halted.receiver.close();
    }
  }, 90_000);
});
