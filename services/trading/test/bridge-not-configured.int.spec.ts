// Proves that a trading instance without a chain custodian (production mode:
// none is integrated yet) refuses a balance-mode sell with 503
// BRIDGE_NOT_CONFIGURED before anything is consumed or collected: the same
// quote then makes the order on the sandbox instance, and the USDT balance was
// untouched. The extra instance shares the stack's database; its scheduler
// interval is set beyond the spec's life so it never runs another order's step.
import { randomUUID } from 'node:crypto';
import { isAppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import { trading } from '@platform/proto';
import { clientAs, runOps, ServiceInstance, startServiceInstance } from '@platform/testing';
import { balances, expectRefusal, orderPartner, quote } from './order-support';

const logger = createLogger('trading-bridge-test', 'error');
/** The production instance never looks for due order steps while this spec runs. */
const SCHEDULER_IDLE_MS = '60000';
/** Nothing listens here: the production instance's HTTP rate feed has no rate, which a create does not need. */
const UNREACHABLE_FEED_URL = 'http://127.0.0.1:9/rate';
const CONNECT_TIMEOUT_MS = 10_000;

describe('BRIDGE_NOT_CONFIGURED', () => {
  let instance: ServiceInstance;

  beforeAll(async () => {
    instance = await startServiceInstance('trading', {
      PLATFORM_MODE: 'production',
      SANDBOX_TIME_SCALE: '1',
      RATE_FEED: 'http',
      RATE_FEED_URL: UNREACHABLE_FEED_URL,
      ORDER_SCHEDULER_INTERVAL_MS: SCHEDULER_IDLE_MS,
    });
  });

  afterAll(async () => instance?.stop());

  it('refuses a balance-mode sell without a custodian, consuming nothing', async () => {
    const p = await orderPartner(['--sell-mode', 'balance']);
    const destination = await runOps<{ id: string }>([
      'payout-destination',
      'add',
      '--partner',
      p.partner.partnerId,
      '--account-number',
      '254712345678',
      '--account-name',
      'Bridge Payee',
    ]);
    const client = clientAs('gateway', trading.TradingOrdersService, {
      upstream: 'trading',
      address: `127.0.0.1:${instance.env.GRPC_PORT}`,
      logger,
    });
    // The connection and its TLS handshake before the quote: the test stack's quotes live
    // 5 s, and the same quote must still be live for the sandbox instance below.
    expect(await client.serving(CONNECT_TIMEOUT_MS)).toBe(true);
    const q = await quote(p.http, 'sell', { usdtAmount: '1.000000' });
    const command = {
      partnerId: p.partner.partnerId,
      quoteId: q.quoteId,
      partnerReference: randomUUID(),
      payoutAccountId: destination.id,
    };
    try {
      const refusal = await client.createSellOrder(command).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isAppError(refusal) ? refusal.code : refusal).toBe('BRIDGE_NOT_CONFIGURED');
    } finally {
      client.close();
    }
    // The quote was not consumed and no order holds the reference: the sandbox instance
    // takes both and goes on to the next refusal (an empty USDT balance), not 409.
    const created = await p.http.post('/v1/orders/sell', {
      quoteId: q.quoteId,
      partnerReference: command.partnerReference,
      payoutAccountId: destination.id,
    });
    expectRefusal(created, 422, 'INSUFFICIENT_USDT_BALANCE');
    expect((await balances(p.http)).USDT).toMatchObject({ available: '0.000000', held: '0.000000' });
  });
});
