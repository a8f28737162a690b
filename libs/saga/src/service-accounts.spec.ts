// Proves the service-account lookup asks the ledger once per code and currency
// and process, answers later calls from memory, and does not remember a failed
// lookup (the next call asks again).
import { ServiceAccounts } from './index';

function countingLedger() {
  const asked: string[] = [];
  let failNext = false;
  return {
    asked,
    failOnce: () => {
      failNext = true;
    },
    ledger: {
      getServiceAccount: async ({ code, currency }: { code: string; currency: string }) => {
        asked.push(`${code}:${currency}`);
        if (failNext) {
          failNext = false;
          throw new Error('ledger unavailable');
        }
        return { accountId: `account-${code}-${currency}` };
      },
    },
  };
}

describe('ServiceAccounts', () => {
  it('asks the ledger once per code and currency, then answers from memory', async () => {
    const { asked, ledger } = countingLedger();
    const accounts = new ServiceAccounts(ledger);
    expect(await accounts.id('fee_revenue', 'KES')).toBe('account-fee_revenue-KES');
    expect(await accounts.id('fee_revenue', 'KES')).toBe('account-fee_revenue-KES');
    expect(await accounts.id('fee_revenue', 'USDT')).toBe('account-fee_revenue-USDT');
    expect(await accounts.id('bank_clearing', 'KES')).toBe('account-bank_clearing-KES');
    expect(asked).toEqual(['fee_revenue:KES', 'fee_revenue:USDT', 'bank_clearing:KES']);
  });

  it('remembers nothing from a failed lookup', async () => {
    const { asked, failOnce, ledger } = countingLedger();
    const accounts = new ServiceAccounts(ledger);
    failOnce();
    await expect(accounts.id('treasury', 'USDT')).rejects.toThrow('ledger unavailable');
    expect(await accounts.id('treasury', 'USDT')).toBe('account-treasury-USDT');
    expect(asked).toEqual(['treasury:USDT', 'treasury:USDT']);
  });
});
