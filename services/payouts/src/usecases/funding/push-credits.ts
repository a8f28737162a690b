/**
 * Books approved mobile-money prompts into the partner's KES account through
 * the ledger, and expires unanswered ones. It runs as a step of the payouts'
 * durable scheduler (every replica polls; approved pushes are claimed in
 * bounded batches, FOR UPDATE SKIP LOCKED, leased by moving the timer ahead),
 * so a credit the ledger did not take (ledger down, crash after approval) is
 * retried until it is booked. The ledger is idempotent on the bank transaction
 * id MMP-<pushId>: however often it is asked, the push is credited and
 * credit.received fires exactly once.
 */
import type { Logger } from '@platform/logger';
import type { DueRows, DueWork, EntityManager } from '@platform/persistence';
import type { MobileMoneyPushesRepository, PushRecord } from '../../persistence/mobile-money-pushes.repository';
import type { LedgerApi } from '../../adapters/peers/peers';

/** The rail credit.received names for a credit brought in by a prompt. */
export const MOBILE_MONEY_PUSH_RAIL = 'mobile_money_push';

export function pushBankTransactionId(pushId: string): string {
  return `MMP-${pushId}`;
}

export class PushCredits implements DueWork<PushRecord> {
  readonly name = 'mobile_money_credit';

  constructor(
    private readonly deps: {
      pushes: MobileMoneyPushesRepository;
      ledger: Pick<LedgerApi, 'recordKesCredit'>;
      logger: Logger;
    },
  ) {}

  /** The approved pushes whose credit is due, as claimDue reads them. */
  get dueRows(): DueRows {
    return this.deps.pushes.dueCreditRows;
  }

  /** Books an approved push now; null when the ledger did not take it (the scheduler retries). */
  async creditNow(push: PushRecord): Promise<PushRecord | null> {
    try {
      await this.run(push);
      return await this.deps.pushes.find(push.pushId);
    } catch (error) {
      this.deps.logger.warn('mobile-money credit not booked yet; the scheduler retries it', {
        pushId: push.pushId,
        error,
      });
      return null;
    }
  }

  /** Each pass also lapses the prompts nobody answered in time (a bounded batch). */
  async claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<PushRecord[]> {
    await this.deps.pushes.expireUnanswered(manager, limit);
    return this.deps.pushes.claimDueCredits(manager, limit, leaseMs);
  }

  idOf(push: PushRecord): string {
    return push.pushId;
  }

  async run(push: PushRecord): Promise<void> {
    const credit = await this.deps.ledger.recordKesCredit({
      bankTransactionId: pushBankTransactionId(push.pushId),
      accountReference: push.kesAccountReference,
      amountKes: push.amountKes,
      rail: MOBILE_MONEY_PUSH_RAIL,
      railReference: push.railReference ?? undefined,
      receivedAt: new Date(push.answeredAt ?? Date.now()).toISOString(),
    });
    await this.deps.pushes.markCredited(push.pushId, credit.transactionId);
    this.deps.logger.info('mobile-money prompt credited', {
      pushId: push.pushId,
      partnerId: push.partnerId,
      transactionId: credit.transactionId,
    });
  }
}
