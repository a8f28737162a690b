/**
 * POST /v1/confirmations/{id}/resend: a fresh
 * code with a fresh expiresAt, on the ladder 30 s, 60 s, 120 s, 300 s (scaled
 * by SANDBOX_TIME_SCALE), then CONFIRMATION_RESEND_LIMIT; inside the cooldown
 * 429 CONFIRMATION_RESEND_COOLDOWN with retryAfterSeconds. The old code stops
 * working; wrong attempts keep counting across codes.
 *
 * No transaction or row lock is held across the notifier call. One short
 * transaction, under the confirmation's lock, takes the cooldown and records
 * the new code under a new issue, so of concurrent resends one sends and the
 * others meet the cooldown; then the code is sent (the notifier is idempotent
 * on the confirmation id and issue, and an issue is never handed out twice);
 * a failed send gives the resend back in a second short transaction, fenced on
 * its issue: the previous code, expiry and cooldown stand again, it does not
 * count towards the limit, and the partner, answered the notifier's error
 * (503), may resend at once. Should the give-back fail too, or the process
 * stop between the commit and the send, the new code stands unsent and the
 * partner resends once its cooldown has passed. The old code stops working at
 * the commit: a confirmation that brings it while the send is out is refused
 * and counted as a wrong attempt, even if a failed send then gives it back.
 *
 * A resend takes no code, so it cannot probe one and spends no wrong-code
 * budget; and since attempts count per confirmation across its codes, a fresh
 * code buys no fresh guesses. But once the partner's budget is spent its
 * confirmations are refused, so a resend is refused too
 * (PARTNER_CONFIRMATIONS_LOCKED): a code that cannot be used is not mailed to
 * the administrators, and whoever holds the credential cannot keep mailing them.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { ConfirmationCodeSender, ConfirmationCodeMessage } from '../../adapters/peers/confirmation-code-sender';
import type { WalletRegistryApi } from '../../adapters/peers/peers';
import { Confirmation, decideResend, generateCode, hashCode, resendCooldownMs } from '../../domain/confirmation-code';
import type { ConfirmationsRepository, IssuedCode } from '../../persistence/confirmations.repository';
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

/** What the first transaction recorded: the new code to send, and the one it replaced in case the send fails. */
interface Reissued {
  confirmation: Confirmation;
  previous: IssuedCode;
  message: ConfirmationCodeMessage;
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
    const reissued = await withTransaction(this.deps.dataSource, (manager) =>
      this.reissue(manager, command, recipient.email),
    );
    const { confirmationId } = reissued.confirmation;
    const issue = reissued.message.issue;
    try {
      await this.deps.codes.send(reissued.message);
    } catch (error) {
      await this.giveBack(reissued);
      throw error;
    }
    this.deps.logger.info('confirmation code resent', { confirmationId, issue });
    return reissued.confirmation;
  }

  /** Under the confirmation's lock: the refusals, then the new code recorded with its cooldown. */
  private async reissue(
    manager: EntityManager,
    command: { partnerId: string; confirmationId: string },
    recipient: string,
  ): Promise<Reissued> {
    const confirmation = await this.deps.confirmations.lock(manager, command.partnerId, command.confirmationId);
    if (!confirmation) throw new AppError('CONFIRMATION_NOT_FOUND');
    const now = new Date();
    const decision = decideResend(confirmation, now);
    if (decision.refusal === 'CONFIRMATION_RESEND_COOLDOWN')
      throw new AppError(decision.refusal, { retryAfterSeconds: decision.retryAfterSeconds });
    if (decision.refusal) throw new AppError(decision.refusal);
    const code = generateCode();
    const issue = confirmation.lastIssue + 1;
    const expiresAt = new Date(now.getTime() + this.deps.settings.codeLifetimeMs);
    const reissued = await this.deps.confirmations.reissue(manager, confirmation.confirmationId, {
      issue,
      codeHash: hashCode(this.deps.settings.codeHashKeyHex, confirmation.confirmationId, issue, code),
      expiresAt,
      resendAvailableAt: new Date(
        now.getTime() + resendCooldownMs(confirmation.resends + 1, this.deps.settings.timeScale),
      ),
    });
    if (!reissued) throw new Error('reissue of a confirmation that is not live under its lock');
    await this.rescheduleSubjects(manager, confirmation.confirmationId, expiresAt);
    const described = await this.deps.describe(manager, confirmation);
    return {
      confirmation: reissued,
      previous: {
        issue: confirmation.codeIssue,
        codeHash: confirmation.codeHash,
        expiresAt: confirmation.expiresAt,
        resendAvailableAt: confirmation.resendAvailableAt,
      },
      message: {
        confirmationId: confirmation.confirmationId,
        issue,
        partnerId: command.partnerId,
        recipient,
        code,
        subjectType: confirmation.subjectType,
        subjectId: confirmation.subjectId,
        kind: described.kind,
        variables: { ...described.variables, expiresAt: expiresAt.toISOString() },
      },
    };
  }

  /** The code did not go out: the resend is given back unless a later one or a confirmation came first. */
  private async giveBack(reissued: Reissued): Promise<void> {
    const { confirmationId } = reissued.confirmation;
    const issue = reissued.message.issue;
    try {
      const givenBack = await withTransaction(this.deps.dataSource, async (manager) => {
        const restored = await this.deps.confirmations.giveBackResend(
          manager,
          confirmationId,
          issue,
          reissued.previous,
        );
        if (restored) await this.rescheduleSubjects(manager, confirmationId, reissued.previous.expiresAt);
        return restored;
      });
      this.deps.logger.warn('confirmation code not sent; the resend is given back', {
        confirmationId,
        issue,
        givenBack,
      });
    } catch (error) {
      // The caller still gets the notifier's error; the cooldown then stands until it passes.
      this.deps.logger.error('confirmation code not sent and the resend could not be given back', {
        confirmationId,
        issue,
        // Only the class and SQL state: a driver's message may quote the row.
        error: { name: (error as { name?: string }).name, sqlState: (error as { code?: string }).code },
      });
    }
  }

  /** The subject lapses when its code does: moved with each code the confirmation holds. */
  private async rescheduleSubjects(manager: EntityManager, confirmationId: string, expiresAt: Date): Promise<void> {
    await this.deps.transfers.rescheduleExpiry(manager, confirmationId, expiresAt);
    await this.deps.sends.rescheduleExpiry(manager, confirmationId, expiresAt);
  }
}
