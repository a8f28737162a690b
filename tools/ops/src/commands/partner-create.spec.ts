// Proves `partner create` validates every flag before calling anything, fills
// in the documented defaults, calls the five steps in order with one partner
// id, prints exactly the five contract fields, and when a step fails says
// which one and how to resume with the same partner id.
import { AppError } from '@platform/errors';
import { CliError, UpstreamError } from '../cli-error';
import type { OpsClients } from '../clients';
import { parsePartnerCreate, runPartnerCreate } from './partner-create';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const required = { name: 'Acme Ltd', 'admin-domain': 'Acme.example' };

function validationMessage(values: Record<string, string>): string {
  try {
    parsePartnerCreate(values, () => partnerId);
  } catch (error) {
    expect((error as CliError).code).toBe('VALIDATION_FAILED');
    return (error as CliError).message;
  }
  throw new Error('expected VALIDATION_FAILED');
}

describe('parsePartnerCreate', () => {
  it('fills in the defaults and makes a partner id', () => {
    expect(parsePartnerCreate(required, () => partnerId)).toEqual({
      partnerId,
      name: 'Acme Ltd',
      adminDomain: 'acme.example',
      buyMode: 'debit_first',
      sellMode: 'deposit',
      perOrderCapKes: '1000000.00',
      dailyCapKes: '5000000.00',
      rateLimitPerMinute: 0,
      feeBps: 50,
      feeFlatKes: '0.00',
      feeCapKes: undefined,
    });
  });

  it('reads every flag', () => {
    const input = parsePartnerCreate(
      {
        ...required,
        'partner-id': partnerId.toUpperCase(),
        'buy-mode': 'pay_in',
        'sell-mode': 'balance',
        'per-order-cap-kes': '250000',
        'daily-cap-kes': '1000000.5',
        'rate-limit-per-minute': '600',
        'fee-bps': '0',
        'fee-flat-kes': '25',
        'fee-cap-kes': '500.00',
      },
      () => 'never used',
    );
    expect(input).toMatchObject({
      partnerId,
      buyMode: 'pay_in',
      sellMode: 'balance',
      perOrderCapKes: '250000.00',
      dailyCapKes: '1000000.50',
      rateLimitPerMinute: 600,
      feeBps: 0,
      feeFlatKes: '25.00',
      feeCapKes: '500.00',
    });
  });

  it('takes "none" as no fee cap', () => {
    expect(parsePartnerCreate({ ...required, 'fee-cap-kes': 'none' }, () => partnerId).feeCapKes).toBeUndefined();
  });

  it('names every bad flag at once', () => {
    expect(
      validationMessage({
        'buy-mode': 'credit',
        'fee-bps': '10001',
        'fee-cap-kes': 'unlimited',
        'partner-id': 'p1',
        'rate-limit-per-minute': '0',
      }),
    ).toBe(
      'Validation failed on: --partner-id (expected a UUID), --name (required), --admin-domain (required), ' +
        '--buy-mode (one of debit_first, pay_in), --rate-limit-per-minute (an integer from 1 to 100000), ' +
        '--fee-bps (an integer from 0 to 10000), --fee-cap-kes (a KES amount like 1000.00)',
    );
  });

  it('refuses a per-order cap above the daily cap', () => {
    expect(validationMessage({ ...required, 'per-order-cap-kes': '6000000' })).toBe(
      'Validation failed on: --per-order-cap-kes (must not exceed the daily cap of 5000000.00)',
    );
  });

  it('does not compare caps when one of them is malformed', () => {
    expect(validationMessage({ ...required, 'daily-cap-kes': '10.001' })).toBe(
      'Validation failed on: --daily-cap-kes (a KES amount like 1000.00 above zero)',
    );
  });
});

function fakeClients(failAt?: string) {
  const calls: Array<[string, unknown]> = [];
  const answer = (name: string, response: unknown) => async (request: unknown) => {
    calls.push([name, request]);
    if (name === failAt)
      throw new UpstreamError(
        name.split('.')[0],
        '127.0.0.1:1',
        name.split('.')[1],
        new AppError('SERVICE_UNAVAILABLE'),
      );
    return response;
  };
  const clients = {
    partnerAdmin: () => ({
      createPartner: answer('gateway.createPartner', { partnerId }),
      issueCredential: answer('gateway.issueCredential', {
        apiKey: 'pk_1',
        signingSecret: 'secret-1',
        scopes: ['read'],
        partnerId,
      }),
    }),
    tradingAdmin: () => ({ configurePartner: answer('trading.configurePartner', {}) }),
    ledger: () => ({
      openPartnerAccounts: answer('ledger.openPartnerAccounts', {
        kesAccountId: 'kes-1',
        usdtDepositAddress: 'TAddress',
      }),
    }),
    walletRegistryAdmin: () => ({ configurePartner: answer('wallet-registry.configurePartner', {}) }),
    webhookAdmin: () => ({}),
  } as unknown as OpsClients;
  return { clients, calls };
}

describe('runPartnerCreate', () => {
  const input = parsePartnerCreate({ ...required, 'rate-limit-per-minute': '60' }, () => partnerId);

  it('runs the five steps in order with one partner id and returns the contract fields', async () => {
    const { clients, calls } = fakeClients();
    await expect(runPartnerCreate(input, clients)).resolves.toEqual({
      partnerId,
      apiKey: 'pk_1',
      signingSecret: 'secret-1',
      kesAccountId: 'kes-1',
      usdtDepositAddress: 'TAddress',
    });
    expect(calls).toEqual([
      ['gateway.createPartner', { partnerId, name: 'Acme Ltd', rateLimitPerMinute: 60 }],
      [
        'trading.configurePartner',
        {
          profile: {
            partnerId,
            status: 'active',
            buyMode: 'debit_first',
            sellMode: 'deposit',
            feeBps: 50,
            feeFlatKes: '0.00',
            feeCapKes: undefined,
            perOrderCapKes: '1000000.00',
            dailyCapKes: '5000000.00',
          },
        },
      ],
      ['ledger.openPartnerAccounts', { partnerId }],
      ['wallet-registry.configurePartner', { settings: { partnerId, adminDomain: 'acme.example' } }],
      ['gateway.issueCredential', { partnerId, scopes: [] }],
    ]);
  });

  it('stops at a failed step and says how to resume', async () => {
    const { clients, calls } = fakeClients('ledger.openPartnerAccounts');
    const error = await runPartnerCreate(input, clients).then(
      () => {
        throw new Error('expected the run to fail');
      },
      (thrown: unknown) => thrown as CliError,
    );
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      exitCode: 1,
      details: { partnerId, step: 'ledger.openPartnerAccounts' },
    });
    expect(error.message).toContain('step 3 of 5 (ledger.openPartnerAccounts) failed');
    expect(error.message).toContain(`re-run with --partner-id ${partnerId}`);
    expect(calls.map(([name]) => name)).toEqual([
      'gateway.createPartner',
      'trading.configurePartner',
      'ledger.openPartnerAccounts',
    ]);
  });
});
