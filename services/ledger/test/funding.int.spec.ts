// Proves, through the gateway, what GET /v1/funding and GET /v1/payout-destinations show: the paybill
// entry with the partner's exact reference only while its KES account is active, the deposit address
// (503 USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED until one is allocated), that every readiness state is
// reachable by operators and exposed to trading; and that payout destinations are listed masked,
// active only, never another partner's, and still resolvable by id when closed or frozen.
import { createTestPartner, PartnerHttpClient, runOps, TestPartner } from '@platform/testing';
import { codeOf, LedgerClient, ledgerClient } from './ledger-support';

describe('funding instructions and payout destinations', () => {
  let client: LedgerClient;

  beforeAll(() => {
    client = ledgerClient();
  });

  afterAll(() => client.close());

  it('shows the paybill entry and the deposit address of an active partner', async () => {
    const partner = await createTestPartner();
    const accounts = await client.getPartnerAccounts({ partnerId: partner.partnerId });
    expect(accounts.kesAccountStatus).toBe('active');
    const response = await new PartnerHttpClient(partner).get('/v1/funding');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      kes: [
        {
          rail: 'mobile_money_paybill',
          paybill: '600100',
          accountReference: accounts.kesAccountReference,
          beneficiaryName: 'Platform Sandbox Collections',
          currency: 'KES',
          instructions: expect.stringContaining('accountReference'),
        },
      ],
      usdt: {
        chain: 'tron',
        asset: 'USDT',
        address: partner.usdtDepositAddress,
        memo: null,
        instructions: expect.any(String),
      },
    });
    expect(accounts.kesAccountReference).toMatch(/^\d{11}$/);
  });

  it('reaches every readiness state and answers funding in each', async () => {
    const partner = await createTestPartner({ extraArgs: ['--kes-account', 'none', '--deposit-address', 'none'] });
    const http = new PartnerHttpClient(partner);
    let accounts = await client.getPartnerAccounts({ partnerId: partner.partnerId });
    expect(accounts).toMatchObject({ kesAccountStatus: 'not_allocated', usdtDepositAddress: '' });
    const refused = await http.get('/v1/funding');
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ statusCode: 503, message: 'USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED' });

    const allocated = await runOps<{ usdtDepositAddress: string }>([
      'deposit-address',
      'allocate',
      '--partner',
      partner.partnerId,
    ]);
    expect(allocated.usdtDepositAddress).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const again = await runOps<{ usdtDepositAddress: string }>([
      'deposit-address',
      'allocate',
      '--partner',
      partner.partnerId,
    ]);
    expect(again.usdtDepositAddress).toBe(allocated.usdtDepositAddress);

    for (const status of ['not_allocated', 'activating', 'suspended'] as const) {
      await runOps(['kes-account', 'set-status', '--partner', partner.partnerId, '--status', status]);
      accounts = await client.getPartnerAccounts({ partnerId: partner.partnerId });
      expect(accounts.kesAccountStatus).toBe(status);
      const response = await http.get('/v1/funding');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ kes: [], usdt: { address: allocated.usdtDepositAddress } });
    }
    await runOps(['kes-account', 'set-status', '--partner', partner.partnerId, '--status', 'active']);
    expect((await http.get('/v1/funding')).body.kes).toHaveLength(1);
  });

  it('lists active payout destinations masked, to their partner only', async () => {
    const partner: TestPartner = await createTestPartner();
    const other = await createTestPartner();
    const mobile = await runOps<{ id: string; accountNumber: string }>([
      'payout-destination',
      'add',
      '--partner',
      partner.partnerId,
      '--account-number',
      '254712345678',
      '--account-name',
      'Jane Wanjiku',
    ]);
    expect(mobile.accountNumber).toBe('****5678');
    const bank = await runOps<{ id: string }>([
      'payout-destination',
      'add',
      '--partner',
      partner.partnerId,
      '--account-number',
      '0123456789',
      '--account-name',
      'Acme Ltd',
      '--bank-code',
      '01',
      '--rail',
      'rtgs',
    ]);
    const closed = await runOps<{ id: string }>([
      'payout-destination',
      'add',
      '--partner',
      partner.partnerId,
      '--account-number',
      '9876543210',
      '--account-name',
      'Old Account',
      '--bank-code',
      '11',
    ]);
    await runOps(['payout-destination', 'set-status', '--id', closed.id, '--status', 'closed']);

    const response = await new PartnerHttpClient(partner).get('/v1/payout-destinations');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      {
        id: mobile.id,
        rail: 'mobile_money',
        currency: 'KES',
        accountName: 'Jane Wanjiku',
        accountNumber: '****5678',
        bankCode: null,
        status: 'active',
      },
      {
        id: bank.id,
        rail: 'rtgs',
        currency: 'KES',
        accountName: 'Acme Ltd',
        accountNumber: '****6789',
        bankCode: '01',
        status: 'active',
      },
    ]);
    expect(JSON.stringify(response.body)).not.toContain('0123456789');
    const foreign = await new PartnerHttpClient(other).get('/v1/payout-destinations');
    expect(foreign.status).toBe(200);
    expect(foreign.body).toEqual([]);

    // Trading resolves a destination by id: closed and frozen ones read with their status; foreign ones are not found.
    expect(await client.getPayoutDestination({ id: closed.id, partnerId: partner.partnerId })).toMatchObject({
      status: 'closed',
      accountNumber: '9876543210',
    });
    await runOps(['payout-destination', 'set-status', '--id', bank.id, '--status', 'frozen']);
    expect(await client.getPayoutDestination({ id: bank.id, partnerId: partner.partnerId })).toMatchObject({
      status: 'frozen',
    });
    expect(await codeOf(client.getPayoutDestination({ id: bank.id, partnerId: other.partnerId }))).toBe(
      'PAYOUT_ACCOUNT_NOT_FOUND',
    );
    expect(
      (await new PartnerHttpClient(partner).get('/v1/payout-destinations')).body.map((item: { id: string }) => item.id),
    ).toEqual([mobile.id]);
  });

  it('refuses a destination its rail does not allow, naming the fields', async () => {
    const partner = await createTestPartner();
    await expect(
      runOps([
        'payout-destination',
        'add',
        '--partner',
        partner.partnerId,
        '--account-number',
        '0712345678',
        '--account-name',
        'Jane',
      ]),
    ).rejects.toThrow('Validation failed on: accountNumber');
    await expect(
      runOps([
        'payout-destination',
        'add',
        '--partner',
        partner.partnerId,
        '--account-number',
        '0123456789',
        '--account-name',
        'Acme',
        '--rail',
        'eft',
      ]),
    ).rejects.toThrow('Validation failed on: bankCode');
  });
});
