// Proves the SDK's typed methods against the running test stack, for a fresh
// partner: each read namespace answers its resource (every answer is also
// validated against the reference by PartnerHttpClient), a quote and a sandbox
// credit go through with amounts normalised to their scale, and refusals arrive
// as PartnerApiError with the fields a partner branches on.
import { UUID_PATTERN } from '@platform/ids';
import { PartnerApiError, PartnerClient } from '@platform/sdk';
import { createTestPartner, PartnerHttpClient } from '@platform/testing';

let sdk: PartnerClient;

beforeAll(async () => {
  sdk = new PartnerHttpClient(await createTestPartner()).sdk;
});

describe('@platform/sdk against the test stack', () => {
  it('reads every resource list of a fresh partner', async () => {
    expect(await sdk.health.get()).toMatchObject({ status: expect.stringMatching(/^(ok|degraded)$/) });
    const balances = await sdk.balances.list();
    expect(balances.map((balance) => balance.currency)).toEqual(expect.arrayContaining(['KES', 'USDT']));
    expect(balances.$response.requestId).toBeTruthy();
    expect((await sdk.funding.instructions()).usdt).toMatchObject({ chain: 'tron', asset: 'USDT', memo: null });
    expect(await sdk.payoutDestinations.list()).toEqual(expect.any(Array));
    expect(await sdk.admins.list()).toEqual([]);
    expect(await sdk.wallets.list()).toEqual([]);
    expect(await sdk.collections.list({ limit: 1 })).toEqual([]);
    expect(await sdk.orders.list()).toEqual([]);
    expect(await sdk.transfers.list()).toEqual([]);
    expect(await sdk.transfers.listBatches({ status: 'completed' })).toEqual([]);
    expect(await sdk.usdtSends.list({ limit: 1 })).toEqual([]);
    expect(await sdk.funding.mobileMoneyPushes()).toEqual([]);
    expect(await sdk.balances.transactions(balances[0]!.accountId)).toEqual([]);
    expect(await sdk.sandbox.outbox()).toEqual([]);
  });

  it('creates through the typed methods, amounts normalised to their scale', async () => {
    await sdk.sandbox.setRate({ bid: '129', ask: '130' });
    const quote = await sdk.quotes.create({ side: 'buy', kesAmount: '1300' });
    expect(quote).toMatchObject({
      quoteId: expect.stringMatching(UUID_PATTERN),
      kesAmount: '1300.00',
      usdtAmount: '10.000000',
      rate: '130.0000',
    });
    expect(quote.$response.status).toBe(201);
    const credit = await sdk.sandbox.kesCredit({ amount: '25' });
    expect(credit.amount).toEqual({ currency: 'KES', value: '25.00' });
    const [line] = await sdk.balances.transactions(credit.accountId, { limit: 1 });
    expect(line).toMatchObject({
      type: 'credit',
      amount: '25.00',
      direction: 'credit',
      availableAfter: '25.00',
      resourceId: credit.transactionId,
    });
  });

  it('raises PartnerApiError with the code, the fields and the request id', async () => {
    const both = await sdk.quotes
      .create({ side: 'buy', kesAmount: '1', usdtAmount: '1' } as never)
      .catch((error: unknown) => error);
    expect(both).toBeInstanceOf(PartnerApiError);
    expect(both).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      fields: ['kesAmount', 'usdtAmount'],
      requestId: expect.any(String),
    });
    await expect(sdk.orders.get('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
      code: 'ORDER_NOT_FOUND',
    });
  });
});
