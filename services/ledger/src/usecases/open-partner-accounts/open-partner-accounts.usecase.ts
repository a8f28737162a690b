import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { DataSource, isUniqueViolation, recordAudit, withTransaction } from '@platform/persistence';
import type { ChainCustodian } from '../../adapters/chain-custodian/chain-custodian';
import { newAccountReference } from '../../domain/account-reference';
import type { AccountsRepository, PartnerAccountSet } from '../../persistence/accounts.repository';
import type { KesAccountStatus } from '../../domain/account';

const REFERENCE_ATTEMPTS_MAX = 5;
/** A KES account opens live, or not yet live; it is suspended only later. */
const OPENING_STATUSES: readonly string[] = ['not_allocated', 'activating', 'active'];

export interface OpenPartnerAccountsCommand {
  partnerId: string;
  /** Default active. */
  kesAccountStatus?: KesAccountStatus;
  /** Default false: a deposit address is allocated at once. */
  withoutDepositAddress?: boolean;
}

/**
 * Operator action at partner creation: opens the partner's KES, USDT and USD
 * accounts, issues its paybill account reference and allocates its USDT deposit
 * address (unless the operator opens it not yet live, or without an address).
 * Idempotent on partner id: a repeat (also a concurrent one) returns the same
 * accounts. The opening is audited with it; a repeat records nothing.
 */
export class OpenPartnerAccountsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly custodian: ChainCustodian,
  ) {}

  async execute(command: OpenPartnerAccountsCommand): Promise<PartnerAccountSet> {
    const kesAccountStatus = command.kesAccountStatus ?? 'active';
    const bad = [
      ...(isUuid(command.partnerId) ? [] : ['partnerId']),
      ...(OPENING_STATUSES.includes(kesAccountStatus) ? [] : ['kesAccountStatus']),
    ];
    if (bad.length > 0) throw validationFailed(bad);
    const existing = await this.accounts.findPartnerAccounts(command.partnerId);
    if (existing) return existing;
    const depositAddress = command.withoutDepositAddress
      ? null
      : await this.custodian.allocateDepositAddress(command.partnerId);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await withTransaction(this.dataSource, async (manager) => {
          await manager.query("SELECT pg_advisory_xact_lock(hashtextextended('open_accounts:' || $1, 0))", [
            command.partnerId,
          ]);
          const raced = await this.accounts.findPartnerAccounts(command.partnerId, manager);
          if (raced) return raced;
          const opened = await this.accounts.createPartnerAccounts(
            manager,
            command.partnerId,
            newAccountReference(),
            depositAddress,
            kesAccountStatus,
          );
          await recordAudit(manager, {
            action: 'partner_accounts.opened',
            partnerId: command.partnerId,
            details: { kesAccountStatus, depositAddress: depositAddress ?? 'none' },
          });
          return opened;
        });
      } catch (error) {
        // A reference collision (1 in 32^8 per pair) is retried with a fresh reference.
        if (!isUniqueViolation(error) || attempt >= REFERENCE_ATTEMPTS_MAX) throw error;
      }
    }
  }
}
