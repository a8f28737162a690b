// Proves the confirmation rules (attempts, lockout, expiry, resends) and
// transfer idempotency through the gateway against the real stack: five wrong
// codes answer incorrect and lock (then even the right code is locked), a used
// code is 409, a malformed one 400 and not counted; the resend ladder (429
// with retryAfterSeconds inside the cooldown, the old code dead after a
// resend); a lapsed code (10 s in the test stack) expires the transfer through
// the durable schedule, fires confirmation.expired and gives back the hold and
// the daily cap; a replayed idempotencyKey answers the original (also under
// concurrency, one transfer and one hold), another body 409; and the daily
// cap is the one orders count (trading's TradingLimits).
import type { PromiseClient } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { trading } from '@platform/proto';
import { clientAs, waitFor } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import {
  eventFor,
  ISO_MS,
  kesBalance,
  latestCode,
  minus,
  payoutsPartner,
  PayoutsPartner,
  transferBody,
  transferReaches,
} from './support';

const logger = createLogger('payouts-int-test', 'error');

function wrongCode(code: string): string {
  return code === '000000' ? '111111' : '000000';
}

describe('Confirmations and idempotency', () => {
  let ctx: PayoutsPartner;
  let limits: PromiseClient<typeof trading.TradingLimitsService>;

  beforeAll(async () => {
    ctx = await payoutsPartner({ fundKes: '100000.00' });
    limits = clientAs('payouts', trading.TradingLimitsService, { upstream: 'trading', logger });
  });

  afterAll(async () => {
    limits.close();
    await ctx.receiver.close();
  });

  it('locks after five wrong codes; then even the right code is refused', async () => {
    const created = await ctx.http.post('/v1/transfers', transferBody());
    const code = await latestCode(ctx.http, created.body.id);
    const confirmationPath = `/v1/confirmations/${created.body.confirmation.id}`;
    const malformed = await ctx.http.post(confirmationPath, { code: '12345' });
    expect(malformed.status).toBe(400);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => ctx.http.post(confirmationPath, { code: wrongCode(code) })),
    );
    expect(answers.map((answer) => `${answer.status} ${answer.body.message}`)).toEqual(
      Array(5).fill('400 CONFIRMATION_CODE_INCORRECT'),
    );
    const right = await ctx.http.post(confirmationPath, { code });
    expect(right.status).toBe(409);
    expect(right.body.message).toBe('CONFIRMATION_LOCKED');
    expect((await ctx.http.get(`/v1/transfers/${created.body.id}`)).body.status).toBe('awaiting_confirmation');
  });

  it('refuses a code used already with 409 CONFIRMATION_ALREADY_USED', async () => {
    const created = await ctx.http.post('/v1/transfers', transferBody());
    const code = await latestCode(ctx.http, created.body.id);
    expect((await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code })).status).toBe(200);
    const again = await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('CONFIRMATION_ALREADY_USED');
  });

  it('resends on the ladder: cooldown 429 with retryAfterSeconds, then a fresh code that replaces the old', async () => {
    const created = await ctx.http.post('/v1/transfers', transferBody());
    const first = await latestCode(ctx.http, created.body.id);
    const resendPath = `/v1/confirmations/${created.body.confirmation.id}/resend`;
    const early = await ctx.http.post(resendPath);
    expect(early.status).toBe(429);
    expect(early.body.message).toBe('CONFIRMATION_RESEND_COOLDOWN');
    expect(early.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) =>
      setTimeout(resolve, Date.parse(created.body.confirmation.resendAvailableAt) - Date.now() + 50),
    );
    const resent = await ctx.http.post(resendPath);
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({
      id: created.body.confirmation.id,
      channel: 'email',
      deliveredTo: created.body.confirmation.deliveredTo,
      expiresAt: expect.stringMatching(ISO_MS),
      resendAvailableAt: expect.stringMatching(ISO_MS),
    });
    expect(
      Date.parse(resent.body.resendAvailableAt) - Date.parse(created.body.confirmation.resendAvailableAt),
    ).toBeGreaterThan(0);
    const second = await latestCode(ctx.http, created.body.id, 2);
    if (first !== second) {
      const old = await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code: first });
      expect(old.body.message).toBe('CONFIRMATION_CODE_INCORRECT');
    }
    expect((await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code: second })).status).toBe(
      200,
    );
    const afterUse = await ctx.http.post(resendPath);
    expect(afterUse.status).toBe(409);
    expect(afterUse.body.message).toBe('CONFIRMATION_ALREADY_USED');
  });

  it('expires a lapsed code through the durable schedule, giving back the hold and the daily cap', async () => {
    // A partner of its own: the other tests' transfers lapse on their own clock and would move this one's balance.
    const own = await payoutsPartner({ fundKes: '1000.00' });
    try {
      await expectExpiry(own);
    } finally {
      await own.receiver.close();
    }
  });

  async function expectExpiry(ctx: PayoutsPartner): Promise<void> {
    const limitsBefore = await limits.getPartnerLimits({ partnerId: ctx.partner.partnerId });
    const before = await kesBalance(ctx.http);
    const created = await ctx.http.post(
      '/v1/transfers',
      transferBody({ amount: { currency: 'KES', value: '700.00' } }),
    );
    expect(created.status).toBe(202);
    const code = await latestCode(ctx.http, created.body.id);
    const during = await limits.getPartnerLimits({ partnerId: ctx.partner.partnerId });
    expect(minus(during.dailyUsedKes, limitsBefore.dailyUsedKes)).toBe('700.00');
    const expired = await transferReaches(ctx.http, created.body.id, 'expired');
    expect(expired.confirmedAt).toBeNull();
    const late = await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code });
    expect(late.status).toBe(409);
    expect(late.body.message).toBe('CONFIRMATION_EXPIRED');
    const resend = await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}/resend`);
    expect(resend.body.message).toBe('CONFIRMATION_EXPIRED');
    expect(await kesBalance(ctx.http)).toEqual(before);
    const after = await limits.getPartnerLimits({ partnerId: ctx.partner.partnerId });
    expect(after.dailyUsedKes).toBe(limitsBefore.dailyUsedKes);
    const event = await eventFor(ctx.receiver, 'confirmation.expired', created.body.id);
    expect(event.data).toEqual({
      confirmationId: created.body.confirmation.id,
      subjectType: 'transfer',
      subjectId: created.body.id,
      expiredAt: expect.stringMatching(ISO_MS),
    });
  }

  it('replays the same idempotencyKey and body with the original; another body is 409', async () => {
    const body = transferBody();
    const created = await ctx.http.post('/v1/transfers', body);
    const replay = await ctx.http.post('/v1/transfers', body);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(created.body);
    const reused = await ctx.http.post('/v1/transfers', { ...body, amount: { currency: 'KES', value: '100.01' } });
    expect(reused.status).toBe(409);
    expect(reused.body.message).toBe('IDEMPOTENCY_KEY_REUSED');
    const code = await latestCode(ctx.http, created.body.id);
    await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code });
    await transferReaches(ctx.http, created.body.id, 'settled');
    const late = await ctx.http.post('/v1/transfers', body);
    expect(late.status).toBe(202);
    expect(late.body.status).toBe('settled');
    expect(late.headers.get('idempotent-replayed')).toBe('true');
  });

  it('makes one transfer and one hold from concurrent replays', async () => {
    const before = await kesBalance(ctx.http);
    const body = transferBody({ amount: { currency: 'KES', value: '10.00' } });
    const answers = await Promise.all(Array.from({ length: 6 }, () => ctx.http.post('/v1/transfers', body)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(202));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    expect(minus((await kesBalance(ctx.http)).held, before.held)).toBe('35.00');
  });

  it('counts transfers in the daily cap orders count, refusing with DAILY_CAP_EXCEEDED', async () => {
    const capped = await payoutsPartner({ fundKes: '5000.00', dailyCapKes: '1000.00' });
    try {
      // An order's usage, as trading records it when an order is created.
      await limits.reserveDailyCap({
        usageId: randomUUID(),
        partnerId: capped.partner.partnerId,
        source: 'order',
        amountKes: '600.00',
      });
      const over = await capped.http.post(
        '/v1/transfers',
        transferBody({ amount: { currency: 'KES', value: '400.01' } }),
      );
      expect(over.status).toBe(422);
      expect(over.body.message).toBe('DAILY_CAP_EXCEEDED');
      expect((await kesBalance(capped.http)).held).toBe('0.00');
      const fits = await capped.http.post(
        '/v1/transfers',
        transferBody({ amount: { currency: 'KES', value: '400.00' } }),
      );
      expect(fits.status).toBe(202);
      const used = await waitFor(
        async () => {
          const now = await limits.getPartnerLimits({ partnerId: capped.partner.partnerId });
          return now.dailyUsedKes === '1000.00' ? now : undefined;
        },
        { what: 'the cap counting the order and the transfer' },
      );
      expect(used.dailyRemainingKes).toBe('0.00');
    } finally {
      await capped.receiver.close();
    }
  });
});
