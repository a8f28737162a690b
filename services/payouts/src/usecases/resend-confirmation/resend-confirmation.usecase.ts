/**
 * POST /v1/confirmations/{id}/resend: a fresh
 * code with a fresh expiresAt, on the ladder 30 s, 60 s, 120 s, 300 s (scaled
 * by SANDBOX_TIME_SCALE), then CONFIRMATION_RESEND_LIMIT; inside the cooldown
 * 429 CONFIRMATION_RESEND_COOLDOWN with retryAfterSeconds. The old code stops
 * working. The message goes out inside the transaction (row locked), so a
 * notifier failure changes nothing; wrong attempts keep counting across codes.
 *
 * A resend takes no code, so it cannot probe one and spends no wrong-code
 * budget; and since attempts count per confirmation across its codes, a fresh
 * code buys no fresh guesses. But once the partner's budget is spent its
 * confirmations are refused, so a resend is refused too
 * (PARTNER_CONFIRMATIONS_LOCKED): a code that cannot be used is not mailed to
 * the administrators, and whoever holds the credential cannot keep mailing them.
 */
import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { ConfirmationCodeSender, ConfirmationCodeMessage } from '../../adapters/peers/confirmation-code-sender';
import type { WalletRegistryApi } from '../../adapters/peers/peers';
import { Confirmation, decideResend, generateCode, hashCode, resendCooldownMs } from '../../domain/confirmation-code';
import { isUuid } from '../../domain/ids';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type { TransfersRepository } from '../../persistence/transfers.repository';
import type { UsdtSendsRepository } from '../../persistence/usdt-sends.repository';
import type { WrongCodeBudgetsRepository } from '../../persistence/wrong-code-budgets.repository';

export interface ResendDependencies {
  dataSource: DataSource;
  confirmations: ConfirmationsRepository;
  transfers: TransfersRepository;
  sends: UsdtSendsRepository;
  budgets: Pick<WrongCodeBudgetsRepository, 'isLocked'>;
  walletRegistry: Pick<WalletRegistryApi, 'getCodeRecipient'>;
  codes: ConfirmationCodeSender;
  /** What the message says about its subject (amount, destination…), by subject. */
  describe: (
    manager: EntityManager,
    confirmation: Confirmation,
  ) => Promise<Pick<ConfirmationCodeMessage, 'kind' | 'variables'>>;
  settings: { codeHashKeyHex: string; codeLifetimeMs: number; timeScale: number };
  logger: Logger;
}

export class ResendConfirmationUseCase {
  constructor(private readonly deps: ResendDependencies) {}

  async execute(command: { partnerId: string; confirmationId: string }): Promise<Confirmation> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    if (!isUuid(command.confirmationId)) throw new AppError('CONFIRMATION_NOT_FOUND');
    const known = await this.deps.confirmations.find(this.deps.dataSource.manager, command.confirmationId);
    if (!known || known.partnerId !== command.partnerId) throw new AppError('CONFIRMATION_NOT_FOUND');
    if (await this.deps.budgets.isLocked(this.deps.dataSource.manager, command.partnerId))
      throw new AppError('PARTNER_CONFIRMATIONS_LOCKED');
    const recipient = await this.deps.walletRegistry.getCodeRecipient({ partnerId: command.partnerId });
    const code = generateCode();
    return withTransaction(this.deps.dataSource, async (manager) => {
      const confirmation = await this.deps.confirmations.lock(manager, command.partnerId, command.confirmationId);
      if (!confirmation) throw new AppError('CONFIRMATION_NOT_FOUND');
      const now = new Date();
      const decision = decideResend(confirmation, now);
      if (decision.refusal === 'CONFIRMATION_RESEND_COOLDOWN')
        throw new AppError(decision.refusal, { retryAfterSeconds: decision.retryAfterSeconds });
      if (decision.refusal) throw new AppError(decision.refusal);
      const issue = confirmation.resends + 1;
      const expiresAt = new Date(now.getTime() + this.deps.settings.codeLifetimeMs);
      const reissued = await this.deps.confirmations.reissue(
        manager,
        confirmation.confirmationId,
        hashCode(this.deps.settings.codeHashKeyHex, confirmation.confirmationId, issue, code),
        expiresAt,
        new Date(now.getTime() + resendCooldownMs(issue, this.deps.settings.timeScale)),
      );
      await this.deps.transfers.rescheduleExpiry(manager, confirmation.confirmationId, expiresAt);
      await this.deps.sends.rescheduleExpiry(manager, confirmation.confirmationId, expiresAt);
      const described = await this.deps.describe(manager, confirmation);
      await this.deps.codes.send({
        confirmationId: confirmation.confirmationId,
        issue,
        partnerId: command.partnerId,
        recipient: recipient.email,
        code,
        subjectType: confirmation.subjectType,
        subjectId: confirmation.subjectId,
        kind: described.kind,
        variables: { ...described.variables, expiresAt: expiresAt.toISOString() },
      });
      this.deps.logger.info('confirmation code resent', { confirmationId: confirmation.confirmationId, issue });
      return reissued;
    });
  }
}
