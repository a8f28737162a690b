/**
 * Operators (`ops confirmations unlock`): lifts a partner's confirmation lock
 * (its wrong-code budget spent) and forgets the wrong codes counted, so the
 * partner starts a fresh budget. The budget row is locked for the clear, so a
 * wrong code in flight is counted either before it (and cleared) or after it
 * (in the fresh budget). Harmless to repeat.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { ClearedLock, WrongCodeBudgetsRepository } from '../../persistence/wrong-code-budgets.repository';

export interface UnlockPartnerConfirmationsDependencies {
  dataSource: DataSource;
  budgets: Pick<WrongCodeBudgetsRepository, 'clear'>;
  logger: Logger;
}

export class UnlockPartnerConfirmationsUseCase {
  constructor(private readonly deps: UnlockPartnerConfirmationsDependencies) {}

  async execute(command: { partnerId: string }): Promise<ClearedLock> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const cleared = await withTransaction(this.deps.dataSource, (manager) =>
      this.deps.budgets.clear(manager, command.partnerId, new Date()),
    );
    this.deps.logger.warn('partner confirmations unlocked by an operator', {
      partnerId: command.partnerId,
      wasLocked: cleared.lockedAt !== null,
      lockedAt: cleared.lockedAt?.toISOString(),
      wrongCodesCleared: cleared.wrongCodesCleared,
    });
    return cleared;
  }
}
