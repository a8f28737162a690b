import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import type { ChainCustodian } from '../../adapters/chain-custodian/chain-custodian';
import { isKesAccountStatus } from '../../domain/account';
import type { AccountsRepository, PartnerAccountSet } from '../../persistence/accounts.repository';

/**
 * Operator actions on a partner's readiness: the bank reports the KES virtual
 * account activating, active or suspended; a USDT deposit address is allocated
 * for a partner opened without one. Allocation is idempotent: a partner that
 * has an address keeps it (an address, once given out, is never replaced).
 * Each change is audited with it.
 */
export class SetAccountReadinessUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly custodian: ChainCustodian,
  ) {}

  async setKesAccountStatus(command: { partnerId: string; status: string }): Promise<PartnerAccountSet> {
    const bad = [
      ...(isUuid(command.partnerId) ? [] : ['partnerId']),
      ...(isKesAccountStatus(command.status) ? [] : ['status']),
    ];
    if (bad.length > 0) throw validationFailed(bad);
    return withTransaction(this.dataSource, async (manager) => {
      const updated = await this.accounts.setKesAccountStatus(command.partnerId, command.status as never, manager);
      if (!updated) throw new AppError('PARTNER_NOT_FOUND');
      await recordAudit(manager, {
        action: 'kes_account.status_set',
        partnerId: command.partnerId,
        details: { status: command.status },
      });
      return updated;
    });
  }

  async allocateDepositAddress(command: { partnerId: string }): Promise<PartnerAccountSet> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const existing = await this.accounts.findPartnerAccounts(command.partnerId);
    if (!existing) throw new AppError('PARTNER_NOT_FOUND');
    if (existing.usdtDepositAddress) return existing;
    const address = await this.custodian.allocateDepositAddress(command.partnerId);
    return withTransaction(this.dataSource, async (manager) => {
      const { accounts, allocated } = await this.accounts.setDepositAddressIfNone(command.partnerId, address, manager);
      if (allocated)
        await recordAudit(manager, {
          action: 'deposit_address.allocated',
          partnerId: command.partnerId,
          details: { address },
        });
      return accounts!;
    });
  }
}
