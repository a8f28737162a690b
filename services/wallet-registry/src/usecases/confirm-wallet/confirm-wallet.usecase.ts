import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { DataSource, EntityManager, recordAudit, withTransaction } from '@platform/persistence';
import { codeMatches, OTP_PATTERN, refusalBeforeAttempt } from '../../domain/approval-code';
import type { Wallet } from '../../domain/wallet';
import type { WalletCodesRepository } from '../../persistence/wallet-codes.repository';
import type { WalletsRepository } from '../../persistence/wallets.repository';

type Refusal = 'WALLET_CODE_INCORRECT' | 'WALLET_CODE_EXPIRED' | 'WALLET_CODE_LOCKED';
type Outcome = { wallet: Wallet } | { refusal: Refusal };

/**
 * An administrator's code moves the wallet to pending_service_approval. The
 * wallet row is locked for the whole check, and a wrong attempt is counted by
 * a conditional UPDATE, so parallel guesses never exceed five. Refusals are
 * decided inside the transaction but thrown after it commits: a counted wrong
 * attempt must stick.
 */
export class ConfirmWalletUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repositories: { wallets: WalletsRepository; codes: WalletCodesRepository },
    private readonly settings: { codeHashKeyHex: string; now: () => Date },
    private readonly logger: Logger,
  ) {}

  async execute(command: { partnerId: string; walletId: string; otp: string }): Promise<Wallet> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    if (!isUuid(command.walletId)) throw new AppError('WALLET_NOT_FOUND');
    // A malformed code is a request error, not a guess: it is not counted.
    if (!OTP_PATTERN.test(command.otp)) throw validationFailed(['otp']);
    const outcome = await withTransaction(this.dataSource, (manager) => this.decide(manager, command));
    if ('refusal' in outcome) {
      this.logger.info('wallet code refused', { walletId: command.walletId, refusal: outcome.refusal });
      throw new AppError(outcome.refusal);
    }
    return outcome.wallet;
  }

  private async decide(
    manager: EntityManager,
    command: { partnerId: string; walletId: string; otp: string },
  ): Promise<Outcome> {
    const { wallets, codes } = this.repositories;
    const wallet = await wallets.lockLive(manager, command.partnerId, command.walletId);
    if (!wallet) throw new AppError('WALLET_NOT_FOUND');
    const code = await codes.latest(manager, wallet.walletId);
    if (wallet.status !== 'pending_partner_approval') {
      // Retry-safe: the code that confirmed the wallet, sent again, answers the wallet as it stands.
      if (code && code.status === 'used' && codeMatches(this.settings.codeHashKeyHex, code, command.otp))
        return { wallet };
      return { refusal: 'WALLET_CODE_EXPIRED' };
    }
    const refusal = refusalBeforeAttempt(code, this.settings.now());
    if (refusal || !code) return { refusal: refusal ?? 'WALLET_CODE_EXPIRED' };
    if (codeMatches(this.settings.codeHashKeyHex, code, command.otp)) {
      if (!(await codes.markUsed(manager, code.codeId))) return { refusal: 'WALLET_CODE_EXPIRED' };
      const confirmed = await wallets.markPartnerApproved(manager, wallet.walletId);
      await recordAudit(manager, {
        action: 'wallet.confirmed',
        partnerId: command.partnerId,
        details: { walletId: wallet.walletId },
      });
      this.logger.info('wallet confirmed by administrator', { walletId: wallet.walletId, codeId: code.codeId });
      return { wallet: confirmed };
    }
    const counted = await codes.countWrongAttempt(manager, code.codeId);
    return { refusal: counted ? 'WALLET_CODE_INCORRECT' : 'WALLET_CODE_LOCKED' };
  }
}
