// Proves trading.TradingLimits against the real test stack over gRPC: a KES
// reservation counts, a USDT one is valued at the pinned bid rounded up to the
// cent, the cap boundary (exactly reaching it passes, a cent over refuses with
// the source's code), idempotency on usageId (same body → the original, a
// different body → DAILY_CAP_USAGE_ID_REUSED), release giving value back (twice
// is harmless), a halted rate refusing USDT valuation, and 20 parallel
// reservations that together exceed the cap never all passing.
import { randomUUID } from 'node:crypto';
import type { PromiseClient } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { trading } from '@platform/proto';
import { clientAs, createTestPartner, loadTestStack, PartnerHttpClient, TestPartner } from '@platform/testing';

const logger = createLogger('trading-cap-int-test', 'error');
const BID = '128.1234';
const ASK = '130.9876';

type LimitsClient = PromiseClient<typeof trading.TradingLimitsService>;

async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
  return 'resolved';
}

async function newPartner(dailyCapKes: string): Promise<TestPartner> {
  return createTestPartner({ extraArgs: ['--daily-cap-kes', dailyCapKes, '--per-order-cap-kes', dailyCapKes] });
}

describe('TradingLimits (daily cap)', () => {
  let limits: LimitsClient;

  beforeAll(() => {
    // The cap's caller is payouts.
    limits = clientAs('payouts', trading.TradingLimitsService, { upstream: 'trading', logger });
  });

  it('counts KES and USDT usages, allows reaching the cap exactly and refuses a cent over', async () => {
    const partner = await newPartner('1000.00');
    const http = new PartnerHttpClient(partner);
    expect((await http.post('/v1/sandbox/rates', { bid: BID, ask: ASK })).status).toBe(200);
    const first = await limits.reserveDailyCap({
      usageId: randomUUID(),
      partnerId: partner.partnerId,
      source: 'transfer',
      amountKes: '500.00',
    });
    expect(first).toMatchObject({ partnerId: partner.partnerId, source: 'transfer', amountKes: '500.00' });
    expect(first.releasedAt).toBeUndefined();
    // 1.000001 USDT × 128.1234 = 128.1234012… → 128.13 (rounded up).
    const usdt = await limits.reserveDailyCap({
      usageId: randomUUID(),
      partnerId: partner.partnerId,
      source: 'usdt_send',
      amountUsdt: '1.000001',
    });
    expect(usdt.amountKes).toBe('128.13');
    const over = { usageId: randomUUID(), partnerId: partner.partnerId, amountKes: '371.88' };
    expect(await codeOf(limits.reserveDailyCap({ ...over, source: 'order' }))).toBe('ORDER_EXCEEDS_DAILY_CAP');
    expect(await codeOf(limits.reserveDailyCap({ ...over, source: 'transfer' }))).toBe('DAILY_CAP_EXCEEDED');
    await limits.reserveDailyCap({
      usageId: randomUUID(),
      partnerId: partner.partnerId,
      source: 'order',
      amountKes: '371.87',
    });
    expect(await limits.getPartnerLimits({ partnerId: partner.partnerId })).toEqual({
      partnerId: partner.partnerId,
      perOrderCapKes: '1000.00',
      dailyCapKes: '1000.00',
      dailyUsedKes: '1000.00',
      dailyRemainingKes: '0.00',
    });
  });

  it('is idempotent on usageId and releases value that never moved', async () => {
    const partner = await newPartner('100.00');
    const body = { usageId: randomUUID(), partnerId: partner.partnerId, source: 'order', amountKes: '100.00' };
    const original = await limits.reserveDailyCap(body);
    expect(await limits.reserveDailyCap(body)).toEqual(original);
    expect(await codeOf(limits.reserveDailyCap({ ...body, amountKes: '99.00' }))).toBe('DAILY_CAP_USAGE_ID_REUSED');
    expect(await codeOf(limits.reserveDailyCap({ ...body, usageId: randomUUID(), amountKes: '0.01' }))).toBe(
      'ORDER_EXCEEDS_DAILY_CAP',
    );
    const released = await limits.releaseDailyCap({ usageId: body.usageId });
    expect(released.found).toBe(true);
    expect(released.usage?.releasedAt).toEqual(expect.any(String));
    expect(await limits.releaseDailyCap({ usageId: body.usageId })).toEqual(released);
    expect(await limits.releaseDailyCap({ usageId: randomUUID() })).toEqual({ found: false });
    await limits.reserveDailyCap({ ...body, usageId: randomUUID() });
  });

  it('refuses bad shapes, unknown partners and USDT without a live rate', async () => {
    const partner = await newPartner('100.00');
    const http = new PartnerHttpClient(partner);
    expect(
      await codeOf(
        limits.reserveDailyCap({ usageId: 'x', partnerId: partner.partnerId, source: 'order', amountKes: '1.00' }),
      ),
    ).toBe('VALIDATION_FAILED');
    expect(
      await codeOf(
        limits.reserveDailyCap({ usageId: randomUUID(), partnerId: randomUUID(), source: 'order', amountKes: '1.00' }),
      ),
    ).toBe('PARTNER_NOT_FOUND');
    expect((await http.post('/v1/sandbox/rates', { bid: BID, ask: ASK, halted: true })).status).toBe(200);
    const stalenessMs = Number(
      (loadTestStack() as { extraEnv?: Record<string, string> }).extraEnv?.RATE_STALENESS_LIMIT_MS ?? 60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, stalenessMs + 750));
    expect(
      await codeOf(
        limits.reserveDailyCap({
          usageId: randomUUID(),
          partnerId: partner.partnerId,
          source: 'usdt_send',
          amountUsdt: '1.00',
        }),
      ),
    ).toBe('ORDER_DAILY_CAP_RATE_UNAVAILABLE');
  }, 90_000);

  it('never lets 20 parallel reservations together exceed the cap', async () => {
    const partner = await newPartner('1000.00');
    const attempts = Array.from({ length: 20 }, () =>
      codeOf(
        limits.reserveDailyCap({
          usageId: randomUUID(),
          partnerId: partner.partnerId,
          source: 'order',
          amountKes: '150.00',
        }),
      ),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((code) => code === 'resolved')).toHaveLength(6);
    expect(outcomes.filter((code) => code === 'ORDER_EXCEEDS_DAILY_CAP')).toHaveLength(14);
    expect((await limits.getPartnerLimits({ partnerId: partner.partnerId })).dailyUsedKes).toBe('900.00');
  });
});
