import { randomUUID } from 'node:crypto';
import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { formatAmount } from '@platform/money';
import type { MobileMoneyPushBank } from '../../adapters/bank/bank';
import { parsePushAmountKes } from '../../domain/mobile-money-push';
import { maskMsisdn, normaliseKenyanMsisdn } from '../../domain/msisdn';
import type { MobileMoneyPushesRepository, PushRecord } from '../../persistence/mobile-money-pushes.repository';
import type { LedgerApi } from '../../adapters/peers/peers';

export interface CreateMobileMoneyPushCommand {
  partnerId: string;
  phone: string;
  amountKes: string;
}

/** Ledger KES account states that cannot take a credit yet, and the 503 each answers. */
const KES_ACCOUNT_NOT_READY: Readonly<
  Record<string, 'PARTNER_VA_NOT_ALLOCATED' | 'PARTNER_VA_ACTIVATING' | 'PARTNER_VA_SUSPENDED'>
> = {
  not_allocated: 'PARTNER_VA_NOT_ALLOCATED',
  activating: 'PARTNER_VA_ACTIVATING',
  suspended: 'PARTNER_VA_SUSPENDED',
};

/**
 * Sends a mobile-money prompt for the partner's own KES account. The partner's
 * KES account must be active (an approval would otherwise land in suspense).
 * The push is stored before the bank is asked, so every prompt that may have
 * gone out has a row; no idempotency key, so every call is a new prompt.
 */
export class CreateMobileMoneyPushUseCase {
  constructor(
    private readonly deps: {
      pushes: MobileMoneyPushesRepository;
      ledger: Pick<LedgerApi, 'getPartnerAccounts'>;
      bank: MobileMoneyPushBank;
      lifetimeMs: number;
      logger: Logger;
    },
  ) {}

  async execute(command: CreateMobileMoneyPushCommand): Promise<PushRecord> {
    const msisdn = normaliseKenyanMsisdn(command.phone);
    const amount = parsePushAmountKes(command.amountKes);
    const bad = [...(msisdn ? [] : ['phone']), ...(amount ? [] : ['amount'])];
    if (bad.length > 0) throw validationFailed(bad);
    const accounts = await this.deps.ledger.getPartnerAccounts({ partnerId: command.partnerId });
    const notReady = KES_ACCOUNT_NOT_READY[accounts.kesAccountStatus];
    if (notReady || accounts.kesAccountStatus !== 'active') throw new AppError(notReady ?? 'PARTNER_VA_NOT_ALLOCATED');
    const push = await this.deps.pushes.insert({
      pushId: randomUUID(),
      partnerId: command.partnerId,
      msisdn: msisdn!,
      amountKes: formatAmount(amount!, 'KES'),
      kesAccountReference: accounts.kesAccountReference,
      expiresAt: new Date(Date.now() + this.deps.lifetimeMs),
    });
    await this.send(push);
    return push;
  }

  private async send(push: PushRecord): Promise<void> {
    const log = { pushId: push.pushId, partnerId: push.partnerId, phone: maskMsisdn(push.msisdn) };
    const answer = await this.deps.bank
      .pushPrompt({ reference: push.pushId, msisdn: push.msisdn, amountKes: push.amountKes })
      .catch((error: unknown) => {
        this.deps.logger.warn('mobile-money prompt: the bank call failed', { ...log, error });
        return { outcome: 'unavailable' } as const;
      });
    if (answer.outcome === 'sent') {
      this.deps.logger.info('mobile-money prompt sent', log);
      return;
    }
    await this.deps.pushes.markNotSent(push.pushId, answer.outcome);
    this.deps.logger.info(`mobile-money prompt ${answer.outcome}`, log);
    throw new AppError(answer.outcome === 'rejected' ? 'MOBILE_MONEY_PUSH_REJECTED' : 'MOBILE_MONEY_PUSH_UNAVAILABLE');
  }
}
