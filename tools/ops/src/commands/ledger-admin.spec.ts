// Proves the flags of `kes-account set-status`, `deposit-address allocate`, `payout-destination add|set-status`
// and the readiness options of `partner create` become exactly the ledger requests, and bad flags are refused.
import { CliError } from '../cli-error';
import { parseDepositAddressAllocate, parseKesAccountSetStatus } from './account-readiness';
import { parsePartnerCreate } from './partner-create';
import { parsePayoutDestinationAdd, parsePayoutDestinationSetStatus } from './payout-destination';

const partner = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function refused(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect((error as CliError).code).toBe('VALIDATION_FAILED');
    return (error as CliError).message;
  }
  throw new Error('expected VALIDATION_FAILED');
}

describe('account readiness commands', () => {
  it('sets a known KES account status and requires one', () => {
    expect(parseKesAccountSetStatus({ partner, status: 'suspended' })).toEqual({
      partnerId: partner,
      status: 'suspended',
    });
    expect(refused(() => parseKesAccountSetStatus({ partner }))).toContain('--status (required)');
    expect(refused(() => parseKesAccountSetStatus({ partner, status: 'open' }))).toContain('--status');
    expect(parseDepositAddressAllocate({ partner })).toEqual({ partnerId: partner });
  });

  it('passes partner create readiness options only when named', () => {
    const required = { name: 'Acme', 'admin-domain': 'acme.example' };
    const plain = parsePartnerCreate(required, () => partner);
    expect(plain.kesAccountStatus).toBeUndefined();
    expect(plain.withoutDepositAddress).toBeUndefined();
    const staged = parsePartnerCreate({ ...required, 'kes-account': 'none', 'deposit-address': 'none' }, () => partner);
    expect(staged).toMatchObject({ kesAccountStatus: 'not_allocated', withoutDepositAddress: true });
    expect(refused(() => parsePartnerCreate({ ...required, 'kes-account': 'suspended' }))).toContain('--kes-account');
  });
});

describe('payout destination commands', () => {
  it('defaults the rail from the bank code', () => {
    expect(parsePayoutDestinationAdd({ partner, 'account-number': '254712345678', 'account-name': 'Jane' })).toEqual({
      partnerId: partner,
      rail: 'mobile_money',
      accountName: 'Jane',
      accountNumber: '254712345678',
    });
    expect(
      parsePayoutDestinationAdd({
        partner,
        'account-number': '0123456789',
        'account-name': 'Acme',
        'bank-code': '01',
        rail: 'rtgs',
      }),
    ).toEqual({ partnerId: partner, rail: 'rtgs', accountName: 'Acme', accountNumber: '0123456789', bankCode: '01' });
    expect(
      parsePayoutDestinationAdd({ partner, 'account-number': '0123456789', 'account-name': 'Acme', 'bank-code': '01' })
        .rail,
    ).toBe('pesalink');
  });

  it('refuses missing fields and unknown statuses', () => {
    expect(refused(() => parsePayoutDestinationAdd({ partner }))).toContain('--account-name');
    expect(parsePayoutDestinationSetStatus({ id: partner, status: 'frozen' })).toEqual({
      id: partner,
      status: 'frozen',
    });
    expect(refused(() => parsePayoutDestinationSetStatus({ id: partner, status: 'gone' }))).toContain('--status');
  });
});
