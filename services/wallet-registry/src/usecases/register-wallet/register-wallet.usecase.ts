import { randomUUID } from 'node:crypto';
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Logger, maskEmail } from '@platform/logger';
import { DataSource, EntityManager, recordAudit, withTransaction } from '@platform/persistence';
import type { ApprovalCodeSender } from '../../adapters/notifier/approval-code-sender';
import { decideReRegistration, generateCode, hashCode } from '../../domain/approval-code';
import { chooseCodeRecipient } from '../../domain/code-eligibility';
import { parseWalletInput, Wallet, WalletInput } from '../../domain/wallet';
import type { Administrator, AdministratorsRepository } from '../../persistence/administrators.repository';
import type { WalletCodesRepository } from '../../persistence/wallet-codes.repository';
import type { WalletsRepository } from '../../persistence/wallets.repository';

export interface RegisterWalletCommand extends WalletInput {
  partnerId: string;
}

export interface RegisterWalletResult {
  wallet: Wallet;
  created: boolean;
  /** Masked e-mail of the administrator holding the live code; absent past partner approval. */
  approvalSentTo?: string;
  codeIssued: boolean;
}

export interface RegisterWalletSettings {
  codeHashKeyHex: string;
  /** Code lifetime, already scaled by SANDBOX_TIME_SCALE in sandbox mode. */
  codeTtlMs: number;
  now: () => Date;
}

/** A concurrent removal can take the chosen recipient away before it is locked once; one more look sees the next. */
const RECIPIENT_LOOKUPS_MAX = 2;

/**
 * Registers a withdrawal address, or returns the existing registration as
 * the re-registration rules say (domain/approval-code.ts). The code is sent through the notifier INSIDE the
 * transaction: when the notifier cannot take it, everything rolls back and
 * the partner gets 503 with nothing half-done visible; a retry starts afresh.
 */
export class RegisterWalletUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repositories: {
      wallets: WalletsRepository;
      codes: WalletCodesRepository;
      admins: AdministratorsRepository;
    },
    private readonly sender: ApprovalCodeSender,
    private readonly settings: RegisterWalletSettings,
    private readonly logger: Logger,
  ) {}

  async execute(command: RegisterWalletCommand): Promise<RegisterWalletResult> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const input = parseWalletInput(command);
    return withTransaction(this.dataSource, async (manager) => {
      const { wallet, created } = await this.repositories.wallets.insertOrLock(manager, command.partnerId, input);
      if (created) {
        await recordAudit(manager, {
          action: 'wallet.registered',
          partnerId: command.partnerId,
          details: { walletId: wallet.walletId, chain: wallet.chain, asset: wallet.asset, address: wallet.address },
        });
      }
      const now = this.settings.now();
      const latest = created ? null : await this.repositories.codes.latest(manager, wallet.walletId);
      const decision = created ? 'issue_fresh_code' : decideReRegistration(wallet.status, latest, now);
      if (decision === 'unchanged') return { wallet, created, codeIssued: false };
      if (decision === 'return_live_code' && latest) {
        const email = await this.repositories.admins.findEmail(manager, latest.adminId);
        return { wallet, created, approvalSentTo: email ? maskEmail(email) : undefined, codeIssued: false };
      }
      const admin = await this.codeRecipient(manager, command.partnerId, now);
      await this.issueCode(manager, wallet, admin, now);
      return { wallet, created, approvalSentTo: maskEmail(admin.email), codeIssued: true };
    });
  }

  /** The earliest-registered administrator past its waiting period, held FOR SHARE until the code is issued. */
  private async codeRecipient(manager: EntityManager, partnerId: string, now: Date): Promise<Administrator> {
    for (let lookup = 1; lookup <= RECIPIENT_LOOKUPS_MAX; lookup += 1) {
      const chosen = chooseCodeRecipient(await this.repositories.admins.listActive(manager, partnerId), now);
      if (!chosen) break;
      const admin = await this.repositories.admins.lockActive(manager, chosen.adminId);
      if (admin) return admin;
    }
    throw new AppError('NO_ADMINISTRATOR_REGISTERED');
  }

  private async issueCode(manager: EntityManager, wallet: Wallet, admin: Administrator, now: Date): Promise<void> {
    const codeId = randomUUID();
    const code = generateCode();
    const expiresAt = new Date(now.getTime() + this.settings.codeTtlMs);
    await this.repositories.codes.supersedeLive(manager, wallet.walletId);
    await this.repositories.codes.insert(manager, {
      codeId,
      walletId: wallet.walletId,
      adminId: admin.adminId,
      codeHash: hashCode(this.settings.codeHashKeyHex, codeId, code),
      expiresAt,
    });
    await this.sender.send({
      codeId,
      partnerId: wallet.partnerId,
      walletId: wallet.walletId,
      recipient: admin.email,
      code,
      chain: wallet.chain,
      asset: wallet.asset,
      address: wallet.address,
      expiresAt,
    });
    this.logger.info('wallet approval code issued', {
      walletId: wallet.walletId,
      codeId,
      adminId: admin.adminId,
      expiresAt: expiresAt.toISOString(),
    });
  }
}
