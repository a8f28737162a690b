import { randomUUID } from 'node:crypto';
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { maskTail } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import {
  PAYOUT_DESTINATION_STATUSES,
  PayoutDestinationStatus,
  PayoutRail,
  payoutDestinationProblems,
} from '../../domain/payout-destination';
import type { AccountsRepository } from '../../persistence/accounts.repository';
import type {
  PayoutDestinationRecord,
  PayoutDestinationsRepository,
} from '../../persistence/payout-destinations.repository';

export interface AddPayoutDestinationCommand {
  partnerId: string;
  rail: string;
  accountName: string;
  accountNumber: string;
  bankCode: string | null;
}

/**
 * Operators register a partner's payout destinations and close or freeze them;
 * partners only read the active ones. A closed or frozen destination stays
 * readable by id so a payout to it is refused PAYOUT_ACCOUNT_NOT_PAYABLE, not
 * PAYOUT_ACCOUNT_NOT_FOUND. Adding and changing are audited, the account
 * number masked to its last four characters.
 */
export class ManagePayoutDestinationsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly destinations: PayoutDestinationsRepository,
  ) {}

  async add(command: AddPayoutDestinationCommand): Promise<PayoutDestinationRecord> {
    const bad = [...(isUuid(command.partnerId) ? [] : ['partnerId']), ...payoutDestinationProblems(command)];
    if (bad.length > 0) throw validationFailed(bad);
    if (!(await this.accounts.findPartnerAccounts(command.partnerId))) throw new AppError('PARTNER_NOT_FOUND');
    return withTransaction(this.dataSource, async (manager) => {
      const added = await this.destinations.insert(
        {
          id: randomUUID(),
          partnerId: command.partnerId,
          rail: command.rail as PayoutRail,
          accountName: command.accountName.trim(),
          accountNumber: command.accountNumber,
          bankCode: command.bankCode,
        },
        manager,
      );
      await recordAudit(manager, {
        action: 'payout_destination.added',
        partnerId: added.partnerId,
        details: {
          destinationId: added.id,
          rail: added.rail,
          accountNumber: maskTail(added.accountNumber),
          bankCode: added.bankCode ?? 'none',
        },
      });
      return added;
    });
  }

  async setStatus(command: { id: string; status: string }): Promise<PayoutDestinationRecord> {
    const status = command.status as PayoutDestinationStatus;
    const bad = [
      ...(isUuid(command.id) ? [] : ['id']),
      ...(PAYOUT_DESTINATION_STATUSES.includes(status) ? [] : ['status']),
    ];
    if (bad.length > 0) throw validationFailed(bad);
    return withTransaction(this.dataSource, async (manager) => {
      const updated = await this.destinations.setStatus(command.id, status, manager);
      if (!updated) throw new AppError('PAYOUT_ACCOUNT_NOT_FOUND');
      await recordAudit(manager, {
        action: 'payout_destination.status_set',
        partnerId: updated.partnerId,
        details: { destinationId: updated.id, status },
      });
      return updated;
    });
  }

  async get(command: { id: string; partnerId: string }): Promise<PayoutDestinationRecord> {
    if (!isUuid(command.id) || !isUuid(command.partnerId)) throw new AppError('PAYOUT_ACCOUNT_NOT_FOUND');
    const found = await this.destinations.findForPartner(command.id, command.partnerId);
    if (!found) throw new AppError('PAYOUT_ACCOUNT_NOT_FOUND');
    return found;
  }

  async listActive(command: { partnerId: string }): Promise<PayoutDestinationRecord[]> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    return this.destinations.listActive(command.partnerId);
  }
}
