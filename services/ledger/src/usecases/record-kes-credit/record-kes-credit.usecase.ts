import { randomUUID } from 'node:crypto';
import { validationFailed } from '@platform/errors';
import { CreditReceivedData, enqueueEvent } from '@platform/events';
import { Big, formatAmount, parsePositiveAmount } from '@platform/money';
import { DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { sha256Hex } from '@platform/crypto';
import { normaliseAccountReference } from '../../domain/account-reference';
import { normalisePaymentReference } from '../../domain/payment-reference';
import type { AccountsRepository, PartnerAccountSet } from '../../persistence/accounts.repository';
import type { PaymentReferencesRepository } from '../../persistence/payment-references.repository';
import { postEntry } from '../../persistence/journal.repository';
import type { KesCreditRecord, KesCreditsRepository } from '../../persistence/kes-credits.repository';
import type { MoneyMovementLog } from '../money-movements';
import type { RecordKesCreditCommand } from './record-kes-credit.command';

const BANK_TRANSACTION_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const RAIL = /^[a-z_]{1,40}$/;
const RAIL_REFERENCE = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Records money the bank says arrived on a paybill account reference, exactly
 * once per bank transaction id: the credit, its balanced entry (bank clearing
 * → partner KES) and the `credit.received` event commit together. A reference
 * that matches no partner credits suspense and fires nothing, so operators can
 * return or re-attribute it. A registered pay-in order reference is
 * that order's partner's KES account: the credit lands in the partner's balance
 * like any other, and records the reference so trading can match the order.
 */
export class RecordKesCreditUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly credits: KesCreditsRepository,
    private readonly onCommitted: () => void,
    private readonly paymentReferences: PaymentReferencesRepository,
    private readonly movements: MoneyMovementLog,
  ) {}

  async execute(command: RecordKesCreditCommand): Promise<KesCreditRecord> {
    const amount = this.validate(command);
    const { record, recordedNow } = await withTransaction(this.dataSource, async (manager) => {
      await this.credits.lockBankTransaction(manager, command.bankTransactionId);
      const existing = await this.credits.find(manager, command.bankTransactionId);
      if (existing) return { record: existing, recordedNow: false };
      return { record: await this.recordNew(manager, command, amount), recordedNow: true };
    });
    this.onCommitted();
    if (recordedNow) this.movements.kesCreditRecorded(record);
    return record;
  }

  private validate(command: RecordKesCreditCommand): Big {
    const bad: string[] = [];
    if (!BANK_TRANSACTION_ID.test(command.bankTransactionId)) bad.push('bankTransactionId');
    const amount = parsePositiveAmount(command.amountKes, 'KES');
    if (!amount) bad.push('amountKes');
    if (!RAIL.test(command.rail)) bad.push('rail');
    if (command.railReference !== null && !RAIL_REFERENCE.test(command.railReference)) bad.push('railReference');
    if (Number.isNaN(Date.parse(command.receivedAt))) bad.push('receivedAt');
    if (bad.length > 0) throw validationFailed(bad);
    return amount!;
  }

  private async recordNew(
    manager: EntityManager,
    command: RecordKesCreditCommand,
    amount: Big,
  ): Promise<KesCreditRecord> {
    const { partner, paymentReference } = await this.resolve(manager, command.accountReference);
    const creditedAccountId = partner?.kesAccountId ?? (await this.accounts.serviceAccountId('suspense', 'KES'));
    const entryId = randomUUID();
    await postEntry(
      manager,
      {
        entryId,
        kind: partner ? 'kes_credit' : 'kes_credit_unmatched',
        partnerId: partner?.partnerId ?? null,
        postings: [
          { accountId: creditedAccountId, currency: 'KES', amount },
          {
            accountId: await this.accounts.serviceAccountId('bank_clearing', 'KES'),
            currency: 'KES',
            amount: amount.times(-1),
          },
        ],
        metadata: { bankTransactionId: command.bankTransactionId, rail: command.rail },
      },
      sha256Hex(JSON.stringify(command)),
    );
    const record = await this.credits.insert(manager, {
      transactionId: randomUUID(),
      bankTransactionId: command.bankTransactionId,
      partnerId: partner?.partnerId ?? null,
      accountId: creditedAccountId,
      amountKes: formatAmount(amount, 'KES'),
      rail: command.rail,
      railReference: command.railReference,
      receivedAt: new Date(command.receivedAt).toISOString(),
      entryId,
      paymentReference,
    });
    if (partner) {
      await enqueueEvent<CreditReceivedData>(manager, {
        partnerId: partner.partnerId,
        type: 'credit.received',
        data: {
          transactionId: record.transactionId,
          accountId: record.accountId,
          amount: { currency: 'KES', value: record.amountKes },
          rail: record.rail,
          reference: record.railReference,
          receivedAt: record.receivedAt,
        },
      });
    }
    return record;
  }

  /** The partner the typed reference names: its paybill reference, or a registered order payment reference; neither → null (suspense). */
  private async resolve(
    manager: EntityManager,
    typed: string,
  ): Promise<{ partner: PartnerAccountSet | null; paymentReference: string | null }> {
    const accountReference = normaliseAccountReference(typed);
    if (accountReference)
      return { partner: await this.accounts.findByKesReference(accountReference, manager), paymentReference: null };
    const orderReference = normalisePaymentReference(typed);
    const registered = orderReference ? await this.paymentReferences.find(manager, orderReference) : null;
    if (!registered) return { partner: null, paymentReference: null };
    const partner = await this.accounts.findPartnerAccounts(registered.partnerId, manager);
    return { partner, paymentReference: partner ? registered.reference : null };
  }
}
