import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { AccountsRepository } from '../../persistence/accounts.repository';

export interface FundingSettings {
  paybillNumber: string;
  beneficiaryName: string;
}

export interface FundingInstructionsRecord {
  partnerId: string;
  kesEntryAvailable: boolean;
  paybill: string;
  accountReference: string;
  beneficiaryName: string;
  usdtDepositAddress: string | null;
  kesAccountStatus: string;
}

/**
 * What a partner may use to fund its balances now: the paybill entry only
 * while its KES account is active (money paid to a reference that is not live
 * could not be credited promptly), and its USDT deposit address once allocated.
 */
export class GetFundingInstructionsUseCase {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly settings: FundingSettings,
  ) {}

  async execute(command: { partnerId: string }): Promise<FundingInstructionsRecord> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const set = await this.accounts.findPartnerAccounts(command.partnerId);
    if (!set) throw new AppError('PARTNER_VA_NOT_ALLOCATED');
    return {
      partnerId: set.partnerId,
      kesEntryAvailable: set.kesAccountStatus === 'active',
      paybill: this.settings.paybillNumber,
      accountReference: set.kesAccountReference,
      beneficiaryName: this.settings.beneficiaryName,
      usdtDepositAddress: set.usdtDepositAddress,
      kesAccountStatus: set.kesAccountStatus,
    };
  }
}
