/**
 * POST /v1/confirmations/{id}. The
 * confirmation row is locked for the whole check; a wrong code is counted by
 * a conditional UPDATE, so parallel guesses never exceed five, and the
 * refusal is thrown after the count commits. The right code confirms every
 * transfer of the confirmation and hands each to the payout runner as an
 * instruction, in the same transaction (a USDT send becomes due for release):
 * nothing reaches the bank or the chain before this.
 *
 * Wrong codes also spend the partner's budget across all its confirmations
 * (src/domain/wrong-code-budget.ts), counted in the same transaction; once it
 * is spent every confirmation of the partner answers PARTNER_CONFIRMATIONS_LOCKED,
 * even with the right code, until an operator clears it. The wrong code that
 * spends it raises one structured alert, after its count committed.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import { CODE_PATTERN, codeMatches, Confirmation, refusalBeforeAttempt } from '../../domain/confirmation-code';
import type { WrongCodeBudgetSettings, WrongCodeCount } from '../../domain/wrong-code-budget';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type { PayoutInstructionsRepository } from '../../persistence/payout-instructions.repository';
import type { TransfersRepository } from '../../persistence/transfers.repository';
import type { UsdtSendsRepository } from '../../persistence/usdt-sends.repository';
import type { WrongCodeBudgetsRepository } from '../../persistence/wrong-code-budgets.repository';

type Refusal =
  | 'CONFIRMATION_CODE_INCORRECT'
  | 'CONFIRMATION_LOCKED'
  | 'CONFIRMATION_EXPIRED'
  | 'CONFIRMATION_ALREADY_USED'
  | 'PARTNER_CONFIRMATIONS_LOCKED';
/** budget: what counting a wrong code did to the partner's budget, when one was counted. */
type Outcome = { confirmation: Confirmation; verifiedAt: Date } | { refusal: Refusal; budget?: WrongCodeCount };

export interface ConfirmationResultView {
  confirmationId: string;
  subjectType: string;
  subjectId: string;
  status: 'confirmed';
  verifiedAt: string;
}

export interface ConfirmDependencies {
  dataSource: DataSource;
  confirmations: ConfirmationsRepository;
  transfers: TransfersRepository;
  sends: UsdtSendsRepository;
  instructions: PayoutInstructionsRepository;
  budgets: Pick<WrongCodeBudgetsRepository, 'isLocked' | 'countWrongCode'>;
  budget: WrongCodeBudgetSettings;
  codeHashKeyHex: string;
  logger: Logger;
  /** A confirmed subject is due at once: the payout runner is kicked. */
  onConfirmed: () => void;
}

export class ConfirmUseCase {
  constructor(private readonly deps: ConfirmDependencies) {}

  async execute(command: { partnerId: string; confirmationId: string; code: string }): Promise<ConfirmationResultView> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    if (!isUuid(command.confirmationId)) throw new AppError('CONFIRMATION_NOT_FOUND');
    // A malformed code is a request error, not a guess: it is not counted.
    if (!CODE_PATTERN.test(command.code)) throw validationFailed(['code']);
    const outcome = await withTransaction(this.deps.dataSource, (manager) => this.decide(manager, command));
    if ('refusal' in outcome) {
      this.deps.logger.info('confirmation code refused', {
        confirmationId: command.confirmationId,
        refusal: outcome.refusal,
      });
      if (outcome.budget?.lockedNow) this.alertBudgetSpent(command.partnerId, outcome.budget);
      throw new AppError(outcome.refusal);
    }
    this.deps.onConfirmed();
    const { confirmation } = outcome;
    return {
      confirmationId: confirmation.confirmationId,
      subjectType: confirmation.subjectType,
      subjectId: confirmation.subjectId,
      status: 'confirmed',
      verifiedAt: outcome.verifiedAt.toISOString(),
    };
  }

  private async decide(
    manager: EntityManager,
    command: { partnerId: string; confirmationId: string; code: string },
  ): Promise<Outcome> {
    const confirmation = await this.deps.confirmations.lock(manager, command.partnerId, command.confirmationId);
    if (!confirmation) throw new AppError('CONFIRMATION_NOT_FOUND');
    // Before anything else about the confirmation: a locked partner learns nothing more, not even whether the code was right.
    if (await this.deps.budgets.isLocked(manager, command.partnerId))
      return { refusal: 'PARTNER_CONFIRMATIONS_LOCKED' };
    const refusal = refusalBeforeAttempt(confirmation, new Date());
    if (refusal) return { refusal };
    if (!codeMatches(this.deps.codeHashKeyHex, confirmation, command.code))
      return this.countWrongCode(manager, confirmation);
    const verifiedAt = new Date();
    if (!(await this.deps.confirmations.markUsed(manager, confirmation.confirmationId, verifiedAt)))
      throw new Error('live confirmation not markable under its lock');
    await this.handOff(manager, confirmation.confirmationId, verifiedAt);
    this.deps.logger.info('confirmation verified', {
      confirmationId: confirmation.confirmationId,
      subjectType: confirmation.subjectType,
      subjectId: confirmation.subjectId,
    });
    return { confirmation, verifiedAt };
  }

  /** One wrong code: on the confirmation (the fifth locks it) and on the partner's budget (the last locks them all). */
  private async countWrongCode(manager: EntityManager, confirmation: Confirmation): Promise<Outcome> {
    const after = await this.deps.confirmations.countWrongAttempt(manager, confirmation.confirmationId);
    // Not counted on the confirmation (it stopped being live under its lock): not a guess either.
    if (after === null) return { refusal: 'CONFIRMATION_LOCKED' };
    const budget = await this.deps.budgets.countWrongCode(
      manager,
      { partnerId: confirmation.partnerId, confirmationId: confirmation.confirmationId, countedAt: new Date() },
      this.deps.budget,
    );
    return { refusal: 'CONFIRMATION_CODE_INCORRECT', budget };
  }

  /** Once per lock, after the count committed. Names the partner, never a code. */
  private alertBudgetSpent(partnerId: string, budget: WrongCodeCount): void {
    this.deps.logger.error(
      'wrong confirmation code budget spent: every confirmation of the partner is refused until an operator clears it',
      {
        alert: 'confirmation_code_budget_spent',
        partnerId,
        wrongCodes: budget.wrongCodesInWindow,
        wrongCodesMax: this.deps.budget.wrongCodesMax,
        windowMs: this.deps.budget.windowMs,
      },
    );
  }

  /** Transfers go to the payout runner as instructions; USDT sends become due for release on the send scheduler. */
  private async handOff(manager: EntityManager, confirmationId: string, verifiedAt: Date): Promise<void> {
    await this.deps.sends.markConfirmed(manager, confirmationId, verifiedAt);
    const transfers = await this.deps.transfers.lockByConfirmation(manager, confirmationId);
    for (const transfer of transfers) {
      if (transfer.status !== 'awaiting_confirmation') continue;
      await this.deps.transfers.markConfirmed(manager, transfer.transferId, verifiedAt);
      await this.deps.instructions.insertForTransfer(manager, transfer);
    }
  }
}
