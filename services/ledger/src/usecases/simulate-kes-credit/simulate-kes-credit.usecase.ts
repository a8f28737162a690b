import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from '@platform/persistence';
import { AppError } from '@platform/errors';
import type { AccountsRepository } from '../../persistence/accounts.repository';
import type { KesCreditRecord } from '../../persistence/kes-credits.repository';
import type { RecordKesCreditUseCase } from '../record-kes-credit/record-kes-credit.usecase';
import type { PaymentReferencesRepository } from '../../persistence/payment-references.repository';
import { normalisePaymentReference } from '../../domain/payment-reference';

/** Bytes of the sandbox payer-rail code made for a pay-in payment (10 hex characters). */
const SANDBOX_RAIL_CODE_BYTES = 5;

export const SANDBOX_PAYBILL_RAIL = 'mobile_money_paybill';

/**
 * Sandbox only: the simulated bank receives a paybill payment on the partner's
 * account reference and notifies us through the same path a real bank uses.
 * A `reference` that is one of this partner's pay-in order payment references
 * is what the payer typed as the account number (the rail then makes its own
 * code); any other reference is the payer rail's code on a plain top-up.
 */
export class SimulateKesCreditUseCase {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly recordKesCredit: RecordKesCreditUseCase,
    private readonly dataSource: DataSource,
    private readonly paymentReferences: PaymentReferencesRepository,
  ) {}

  async execute(command: {
    partnerId: string;
    amountKes: string;
    railReference: string | null;
  }): Promise<KesCreditRecord> {
    const partner = await this.accounts.findPartnerAccounts(command.partnerId);
    if (!partner) throw new AppError('PARTNER_VA_NOT_ALLOCATED');
    const orderReference = await this.ownOrderReference(command.partnerId, command.railReference);
    return this.recordKesCredit.execute({
      bankTransactionId: `SBX-${randomUUID()}`,
      accountReference: orderReference ?? partner.kesAccountReference,
      amountKes: command.amountKes,
      rail: SANDBOX_PAYBILL_RAIL,
      railReference: orderReference
        ? `SBX${randomBytes(SANDBOX_RAIL_CODE_BYTES).toString('hex').toUpperCase()}`
        : command.railReference,
      receivedAt: new Date().toISOString(),
    });
  }

  private async ownOrderReference(partnerId: string, reference: string | null): Promise<string | null> {
    const normalised = reference === null ? null : normalisePaymentReference(reference);
    if (!normalised) return null;
    const registered = await this.paymentReferences.find(this.dataSource.manager, normalised);
    return registered?.partnerId === partnerId ? normalised : null;
  }
}
