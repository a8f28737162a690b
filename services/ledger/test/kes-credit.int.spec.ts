// Proves, against the real stack, that a paybill credit reaches the partner's
// KES balance through the gateway, that the bank notifying the same transaction
// several times (also concurrently) credits once, that a reference matching no
// partner credits nobody, and that bad input is refused whole.
import { randomUUID } from 'node:crypto';
import type { PromiseClient } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { Big } from '@platform/money';
import { ledger } from '@platform/proto';
import { createTestPartner, PartnerHttpClient, routedClient, TestPartner } from '@platform/testing';
import { LEDGER_ACCESS } from '../src/grpc/access';

const logger = createLogger('ledger-int-test', 'error');

describe('KES credits', () => {
  let partner: TestPartner;
  let http: PartnerHttpClient;
  let ledgerClient: PromiseClient<typeof ledger.LedgerService>;

  beforeAll(async () => {
    partner = await createTestPartner();
    http = new PartnerHttpClient(partner);
    ledgerClient = routedClient(ledger.LedgerService, LEDGER_ACCESS.LEDGER, { upstream: 'ledger', logger });
  });

  afterAll(() => ledgerClient.close());

  const kesBalance = async () => {
    const response = await http.get('/v1/balances');
    expect(response.status).toBe(200);
    return response.body.find((balance: { currency: string }) => balance.currency === 'KES');
  };

  it('credits the partner through the sandbox helper and shows it in balances', async () => {
    const before = await kesBalance();
    expect(before).toEqual({ accountId: partner.kesAccountId, currency: 'KES', available: '0.00', held: '0.00' });

    const credit = await http.post('/v1/sandbox/kes-credits', { amount: '1500.00', reference: 'QX12AB34' });
    expect(credit.status).toBe(201);
    expect(credit.body).toMatchObject({
      accountId: partner.kesAccountId,
      amount: { currency: 'KES', value: '1500.00' },
      rail: 'mobile_money_paybill',
      reference: 'QX12AB34',
    });
    expect(credit.body.transactionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(credit.body.receivedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const after = await kesBalance();
    expect(after.available).toBe('1500.00');
  });

  it('credits once when the bank notifies the same transaction repeatedly and concurrently', async () => {
    const accounts = await ledgerClient.getPartnerAccounts({ partnerId: partner.partnerId });
    const before = await kesBalance();
    const notification = {
      bankTransactionId: `BANK-${randomUUID()}`,
      accountReference: accounts.kesAccountReference,
      amountKes: '250.75',
      rail: 'mobile_money_paybill',
      railReference: 'RAILREF1',
      receivedAt: new Date().toISOString(),
    };
    const results = await Promise.all(Array.from({ length: 8 }, () => ledgerClient.recordKesCredit(notification)));
    const again = await ledgerClient.recordKesCredit(notification);
    expect(new Set([...results, again].map((result) => result.transactionId)).size).toBe(1);
    const after = await kesBalance();
    expect(new Big(after.available).minus(before.available).toFixed(2)).toBe('250.75');
  });

  it('puts money with an unknown reference in suspense, crediting no partner', async () => {
    const before = await kesBalance();
    const result = await ledgerClient.recordKesCredit({
      bankTransactionId: `BANK-${randomUUID()}`,
      accountReference: '00000000000',
      amountKes: '99.00',
      rail: 'mobile_money_paybill',
      receivedAt: new Date().toISOString(),
    });
    expect(result.partnerId).toBe('');
    expect((await kesBalance()).available).toBe(before.available);
  });

  it.each([
    [{ amount: '10.001' }, 'amount'],
    [{ amount: 10 }, 'amount'],
    [{ amount: '0.00' }, 'amount'],
    [{ amount: '-5.00' }, 'amount'],
    [{ amount: '1e3' }, 'amount'],
    [{ amount: '10.00', reference: 'has spaces' }, 'reference'],
    [{}, 'amount'],
  ])('refuses %j naming %s', async (body, field) => {
    const before = await kesBalance();
    const response = await http.post('/v1/sandbox/kes-credits', body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: `Validation failed on: ${field}`,
    });
    expect((await kesBalance()).available).toBe(before.available);
  });
});
