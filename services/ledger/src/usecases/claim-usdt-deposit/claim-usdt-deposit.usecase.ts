import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { DataSource, withTransaction } from '@platform/persistence';
import type { UsdtDepositRecord, UsdtDepositsRepository } from '../../persistence/usdt-deposits.repository';
import { TX_HASH } from '../record-usdt-deposit/record-usdt-deposit.usecase';

/**
 * Trading attributes a held deposit to a sell order once the order's hash is
 * attached. One claim wins: the row is locked, and only a deposit
 * still held may be claimed; the same claim again returns it. The USDT stays
 * in suspense for the order's own entry. A deposit already credited to the
 * balance, or claimed by another order, is LEDGER_DEPOSIT_NOT_CLAIMABLE.
 */
export class ClaimUsdtDepositUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly deposits: UsdtDepositsRepository,
  ) {}

  async execute(command: { txHash: string; partnerId: string; orderId: string }): Promise<UsdtDepositRecord> {
    const bad = [
      ...(TX_HASH.test(command.txHash) ? [] : ['txHash']),
      ...(isUuid(command.partnerId) ? [] : ['partnerId']),
      ...(isUuid(command.orderId) ? [] : ['orderId']),
    ];
    if (bad.length > 0) throw validationFailed(bad);
    return withTransaction(this.dataSource, async (manager) => {
      const deposit = await this.deposits.find(manager, command.txHash, true);
      if (!deposit || deposit.partnerId !== command.partnerId) throw new AppError('LEDGER_DEPOSIT_NOT_FOUND');
      if (deposit.status === 'claimed' && deposit.orderId === command.orderId) return deposit;
      if (deposit.status !== 'held_for_attribution') throw new AppError('LEDGER_DEPOSIT_NOT_CLAIMABLE');
      return this.deposits.markClaimed(manager, deposit.depositId, command.orderId);
    });
  }
}
