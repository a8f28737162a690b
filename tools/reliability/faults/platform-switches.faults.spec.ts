// Proves the operator's platform-wide switches through the gateway, each with exactly the
// code on the operations it stops and nothing else stopped:
// - the kill switch ("operator halted USDT/KES movement") refuses buy orders, KES transfers
//   and USDT sends with 503 KILL_SWITCH_ENGAGED, holding and reserving nothing;
// - swaps disabled refuses orders with 503 SWAPS_DISABLED while transfers still go through;
// - a treasury account out refuses orders with TREASURY_ACCOUNT_UNAVAILABLE /
//   TREASURY_ACCOUNT_NOT_REGISTERED;
// and, once every switch is back, the same operations are accepted again.
//
// In the serial faults project on purpose: these switches are platform-wide, so no other
// test may create orders, transfers or sends while one is flipped (the per-partner switches,
// suspension and KES account readiness, stay in the trading and payouts integration specs).
import { randomUUID } from 'node:crypto';
import { runOps } from '@platform/testing';
import type { HttpResult } from '@platform/testing';
import { endPools, MoneyPools, moneyPools, PayingPartner, payingPartner, transferBody } from './money-support';

const FUNDING_KES = '2000.00';
const FUNDING_USDT = '20.000000';
const DAILY_CAP_KES = '1000000.00';
const SWITCHES_TEST_TIMEOUT_MS = 120_000;

let pools: MoneyPools;
let p: PayingPartner;

beforeAll(async () => {
  pools = moneyPools();
  p = await payingPartner(FUNDING_KES, FUNDING_USDT, DAILY_CAP_KES);
}, SWITCHES_TEST_TIMEOUT_MS);

afterAll(async () => {
  // Whatever a failed assertion left flipped is put back, so later specs see an open platform.
  await restoreSwitches();
  await endPools(pools);
});

async function restoreSwitches(): Promise<void> {
  await runOps(['kill-switch', 'off']);
  await runOps(['swaps', 'on']);
  await runOps(['treasury', 'set-state', '--currency', 'KES', '--state', 'available']);
  await runOps(['treasury', 'set-state', '--currency', 'USDT', '--state', 'available']);
}

/** A fresh quote (they live 5 s on the test stack) and a buy with it. */
async function buy(): Promise<HttpResult> {
  const quote = await p.http.post('/v1/quotes', { side: 'buy', kesAmount: '100.00' });
  if (quote.status !== 201) throw new Error(`quote answered ${quote.status}: ${quote.text}`);
  return p.http.post('/v1/orders/buy', { quoteId: quote.body.quoteId, partnerReference: randomUUID() });
}

function transfer(): Promise<HttpResult> {
  return p.http.post('/v1/transfers', transferBody('254712345678', '10.00', `switch-${randomUUID()}`));
}

function send(): Promise<HttpResult> {
  return p.http.post('/v1/usdt/sends', {
    destinationWalletId: p.walletId,
    usdtAmount: '1.000000',
    idempotencyKey: `switch-${randomUUID()}`,
  });
}

function outcome(result: HttpResult): { status: number; code: string | undefined } {
  return { status: result.status, code: result.status >= 400 ? result.body?.message : undefined };
}

async function heldAndReserved(): Promise<{ held: string[]; reservedUsages: number }> {
  const balances = (await p.http.get('/v1/balances')).body as Array<{ currency: string; held: string }>;
  const { rows } = await pools.trading.query(
    'SELECT count(*)::int AS n FROM cap_usages WHERE partner_id = $1 AND released_at IS NULL',
    [p.partner.partnerId],
  );
  return { held: balances.map((balance) => `${balance.currency} ${balance.held}`), reservedUsages: rows[0].n };
}

describe('platform-wide operator switches', () => {
  it(
    'the kill switch stops orders, transfers and USDT sends with 503 KILL_SWITCH_ENGAGED, holding nothing',
    async () => {
      const before = await heldAndReserved();
      try {
        expect(await runOps(['kill-switch', 'on'])).toEqual({ killSwitch: 'on' });
        expect(outcome(await buy())).toEqual({ status: 503, code: 'KILL_SWITCH_ENGAGED' });
        expect(outcome(await transfer())).toEqual({ status: 503, code: 'KILL_SWITCH_ENGAGED' });
        expect(outcome(await send())).toEqual({ status: 503, code: 'KILL_SWITCH_ENGAGED' });
        expect(await heldAndReserved()).toEqual(before);
      } finally {
        await runOps(['kill-switch', 'off']);
      }
      expect(outcome(await transfer())).toEqual({ status: 202, code: undefined });
    },
    SWITCHES_TEST_TIMEOUT_MS,
  );

  it(
    'swaps disabled stops orders with 503 SWAPS_DISABLED but not transfers',
    async () => {
      try {
        expect(await runOps(['swaps', 'off'])).toEqual({ swaps: 'off' });
        expect(outcome(await buy())).toEqual({ status: 503, code: 'SWAPS_DISABLED' });
        expect(outcome(await transfer())).toEqual({ status: 202, code: undefined });
      } finally {
        await runOps(['swaps', 'on']);
      }
    },
    SWITCHES_TEST_TIMEOUT_MS,
  );

  it(
    'a treasury account out stops orders with its state, in the contract order',
    async () => {
      try {
        expect(await runOps(['treasury', 'set-state', '--currency', 'KES', '--state', 'unavailable'])).toEqual({
          currency: 'KES',
          state: 'unavailable',
        });
        expect(outcome(await buy())).toEqual({ status: 503, code: 'TREASURY_ACCOUNT_UNAVAILABLE' });
        await runOps(['treasury', 'set-state', '--currency', 'KES', '--state', 'available']);
        await runOps(['treasury', 'set-state', '--currency', 'USDT', '--state', 'not_registered']);
        expect(outcome(await buy())).toEqual({ status: 503, code: 'TREASURY_ACCOUNT_NOT_REGISTERED' });
      } finally {
        await restoreSwitches();
      }
      expect(outcome(await buy())).toEqual({ status: 202, code: undefined });
    },
    SWITCHES_TEST_TIMEOUT_MS,
  );
});
