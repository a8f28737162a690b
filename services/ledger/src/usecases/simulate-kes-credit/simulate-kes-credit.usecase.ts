import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/errors';
import type { AccountsRepository } from '../../persistence/accounts.repository';
import type { KesCreditRecord } from '../../persistence/kes-credits.repository';
import type { RecordKesCreditUseCase } from '../record-kes-credit/record-kes-credit.usecase';

export const SANDBOX_PAYBILL_RAIL = 'mobile_money_paybill';

/**
 * Sandbox only: the simulated bank receives a paybill payment on the partner's
 * account reference and notifies us through the same path a real bank uses.
 */
export class SimulateKesCreditUseCase {
  constructor(private readonly accounts: AccountsRepository, private readonly recordKesCredit: RecordKesCreditUseCase) {}

  async execute(command: { partnerId: string; amountKes: string; railReference: string | null }): Promise<KesCreditRecord> {
    const partner = await this.accounts.findPartnerAccounts(command.partnerId);
    if (!partner) throw new AppError('PARTNER_VA_NOT_ALLOCATED');
    return this.recordKesCredit.execute({
      bankTransactionId: `SBX-${randomUUID()}`,
      accountReference: partner.kesAccountReference,
      amountKes: command.amountKes,
      rail: SANDBOX_PAYBILL_RAIL,
      railReference: command.railReference,
      receivedAt: new Date().toISOString(),
    });
  }
}
