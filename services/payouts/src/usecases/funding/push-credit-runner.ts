/**
 * Books approved mobile-money prompts into the partner's KES account through
 * the ledger, and expires unanswered ones. Every replica polls; approved
 * pushes are claimed in bounded batches (FOR UPDATE SKIP LOCKED, leased by
 * moving the timer ahead), so a credit the ledger did not take (ledger down,
 * crash after approval) is retried until it is booked. The ledger is
 * idempotent on the bank transaction id MMP-<pushId>: however often it is
 * asked, the push is credited and credit.received fires exactly once.
 */
import type { PromiseClient } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { ledger } from '@platform/proto';
import type { MobileMoneyPushesRepository, PushRecord } from '../../persistence/mobile-money-pushes.repository';

/** The rail credit.received names for a credit brought in by a prompt. */
export const MOBILE_MONEY_PUSH_RAIL = 'mobile_money_push';

export interface PushCreditRunnerOptions {
  intervalMs: number;
  batchSize: number;
  leaseMs: number;
}

export function pushBankTransactionId(pushId: string): string {
  return `MMP-${pushId}`;
}

export class PushCreditRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly deps: {
      dataSource: DataSource;
      pushes: MobileMoneyPushesRepository;
      ledger: Pick<PromiseClient<typeof ledger.LedgerService>, 'recordKesCredit'>;
      logger: Logger;
    },
    private readonly options: PushCreditRunnerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(this.options.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Books an approved push now; null when the ledger did not take it (the runner retries). */
  async creditNow(push: PushRecord): Promise<PushRecord | null> {
    try {
      await this.credit(push);
      return await this.deps.pushes.find(push.pushId);
    } catch (error) {
      this.deps.logger.warn('mobile-money credit not booked yet; the runner retries it', { pushId: push.pushId, error });
      return null;
    }
  }

  async tick(): Promise<void> {
    const due = await withTransaction(this.deps.dataSource, (manager) => this.deps.pushes.claimDueCredits(manager, this.options.batchSize, this.options.leaseMs));
    for (const push of due) {
      try {
        await this.credit(push);
      } catch (error) {
        this.deps.logger.error('mobile-money credit failed; retried when its lease passes', { pushId: push.pushId, error });
      }
    }
    await this.deps.pushes.expireUnanswered(this.options.batchSize);
  }

  private async credit(push: PushRecord): Promise<void> {
    const credit = await this.deps.ledger.recordKesCredit({
      bankTransactionId: pushBankTransactionId(push.pushId),
      accountReference: push.kesAccountReference,
      amountKes: push.amountKes,
      rail: MOBILE_MONEY_PUSH_RAIL,
      railReference: push.railReference ?? undefined,
      receivedAt: new Date(push.answeredAt ?? Date.now()).toISOString(),
    });
    await this.deps.pushes.markCredited(push.pushId, credit.transactionId);
    this.deps.logger.info('mobile-money prompt credited', { pushId: push.pushId, partnerId: push.partnerId, transactionId: credit.transactionId });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.tick()
        .catch((error: unknown) => {
          this.deps.logger.error('mobile-money credit pass failed', { error });
        })
        .finally(() => {
          this.running = null;
          this.schedule(this.options.intervalMs);
        });
    }, delayMs);
  }
}
