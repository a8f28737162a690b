import { AppError } from '@platform/errors';
import { Big, formatAmount } from '@platform/money';
import type { AccountsRepository, BalanceRow } from '../../persistence/accounts.repository';

export interface PartnerBalance {
  accountId: string;
  currency: 'KES' | 'USDT' | 'USD';
  available: string;
  held: string;
  posted: string;
}

/** A partner's balances: available = posted − held, each at its currency's scale. */
export class GetBalancesUseCase {
  constructor(private readonly accounts: AccountsRepository) {}

  async execute(command: { partnerId: string }): Promise<PartnerBalance[]> {
    const rows = await this.accounts.partnerBalances(command.partnerId);
    if (rows.length === 0) throw new AppError('PARTNER_VA_NOT_ALLOCATED');
    return rows.map(toPartnerBalance);
  }
}

/** available = posted − held, each at the currency's scale. */
export function toPartnerBalance(row: BalanceRow): PartnerBalance {
  const posted = new Big(row.posted);
  const held = new Big(row.held);
  return {
    accountId: row.accountId,
    currency: row.currency,
    available: formatAmount(posted.minus(held), row.currency),
    held: formatAmount(held, row.currency),
    posted: formatAmount(posted, row.currency),
  };
}
