/**
 * Pay-in buy orders: trading registers an order's payment reference
 * before it hands it to the partner, and later asks which credits carried it.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import { normalisePaymentReference } from '../../domain/payment-reference';
import type { KesCreditRecord, KesCreditsRepository } from '../../persistence/kes-credits.repository';
import type {
  PaymentReferenceRecord,
  PaymentReferencesRepository,
} from '../../persistence/payment-references.repository';

export class PaymentReferencesUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly references: PaymentReferencesRepository,
    private readonly credits: KesCreditsRepository,
  ) {}

  /** Same triple again answers the original; the reference or the order registered otherwise is LEDGER_ID_REUSED (trading draws another). */
  async register(command: PaymentReferenceRecord): Promise<PaymentReferenceRecord> {
    const bad: string[] = [];
    if (normalisePaymentReference(command.reference) !== command.reference) bad.push('reference');
    if (!isUuid(command.partnerId)) bad.push('partnerId');
    if (!isUuid(command.orderId)) bad.push('orderId');
    if (bad.length > 0) throw validationFailed(bad);
    return withTransaction(this.dataSource, async (manager) => {
      const inserted = await this.references.insert(manager, command);
      if (inserted) return inserted;
      const existing =
        (await this.references.find(manager, command.reference)) ??
        (await this.references.findByOrder(manager, command.orderId));
      if (
        existing &&
        existing.reference === command.reference &&
        existing.partnerId === command.partnerId &&
        existing.orderId === command.orderId
      )
        return existing;
      throw new AppError('LEDGER_ID_REUSED');
    });
  }

  async listCredits(command: { partnerId: string; reference: string }): Promise<KesCreditRecord[]> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    if (normalisePaymentReference(command.reference) !== command.reference) throw validationFailed(['reference']);
    return this.credits.listByPaymentReference(this.dataSource.manager, command.partnerId, command.reference);
  }
}
