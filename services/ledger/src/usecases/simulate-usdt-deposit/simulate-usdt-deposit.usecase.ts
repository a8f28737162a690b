import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { AccountsRepository } from '../../persistence/accounts.repository';
import type { UsdtDepositRecord } from '../../persistence/usdt-deposits.repository';
import type { RecordUsdtDepositUseCase } from '../record-usdt-deposit/record-usdt-deposit.usecase';

/**
 * Sandbox only: the simulated chain confirms a USDT transfer to the partner's
 * deposit address and notifies us through the path a real custodian uses.
 */
export class SimulateUsdtDepositUseCase {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly recordUsdtDeposit: RecordUsdtDepositUseCase,
  ) {}

  async execute(command: { partnerId: string; txHash: string; usdtAmount: string }): Promise<UsdtDepositRecord> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const partner = await this.accounts.findPartnerAccounts(command.partnerId);
    if (!partner) throw new AppError('PARTNER_VA_NOT_ALLOCATED');
    if (!partner.usdtDepositAddress) throw new AppError('USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED');
    return this.recordUsdtDeposit.execute({
      txHash: command.txHash,
      toAddress: partner.usdtDepositAddress,
      usdtAmount: command.usdtAmount,
      receivedAt: new Date().toISOString(),
    });
  }
}
