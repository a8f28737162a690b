/**
 * POST /v1/usdt/sends (spec section 4). Idempotent as transfers are
 * (createIdempotently). A saga recording each compensation: the destination
 * must be an active wallet of the partner (wallet registry; asked again at
 * release), the code recipient, the shared daily cap (trading values the USDT
 * at the live bid; ORDER_DAILY_CAP_RATE_UNAVAILABLE without one), the hold on
 * the USDT balance (ledger), the code (notifier). A refusal undoes what was
 * done and frees the key. Nothing reaches the chain before confirmation.
 */
import { randomUUID } from 'node:crypto';
import { AppError, isAppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { walletRegistry } from '@platform/proto';
import type { ConfirmationCodeSender } from '../../adapters/peers/confirmation-code-sender';
import { mapHoldRefusal, releaseCapIdempotently, voidHoldIdempotently } from '../../adapters/peers/holds';
import type { LedgerApi, TradingLimitsApi, WalletRegistryApi } from '../../adapters/peers/peers';
import { generateCode, hashCode, resendCooldownMs } from '../../domain/confirmation-code';
import { holdOwner } from '../../domain/hold-owner';
import { isUuid } from '../../domain/ids';
import { assertWithinSendBounds, parseUsdtSendRequest, UsdtSendRequest, usdtSendRequestHash } from '../../domain/usdt-send-request';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type { UsdtSendRecord, UsdtSendsRepository } from '../../persistence/usdt-sends.repository';
import { createIdempotently } from '../idempotent-create';

export interface CreateUsdtSendSettings {
  minimumUsdt: Big;
  capUsdt: Big;
  codeLifetimeMs: number;
  timeScale: number;
  createLeaseMs: number;
  codeHashKeyHex: string;
}

export interface CreateUsdtSendDependencies {
  dataSource: DataSource;
  sends: UsdtSendsRepository;
  confirmations: ConfirmationsRepository;
  ledger: Pick<LedgerApi, 'getPartnerAccounts' | 'placeHold' | 'voidHold' | 'getHold'>;
  trading: TradingLimitsApi;
  walletRegistry: Pick<WalletRegistryApi, 'getCodeRecipient' | 'getWalletStatus'>;
  codes: ConfirmationCodeSender;
  logger: Logger;
  settings: CreateUsdtSendSettings;
}

export interface CreateUsdtSendCommand {
  partnerId: string;
  destinationWalletId: string;
  usdtAmount: string;
  idempotencyKey: string;
  partnerReference?: string;
}

/** The wallet the send goes to, active now; anything else names no usable wallet. */
export async function activeWallet(registry: Pick<WalletRegistryApi, 'getWalletStatus'>, partnerId: string, walletId: string): Promise<walletRegistry.WalletStatus | null> {
  try {
    const wallet = await registry.getWalletStatus({ partnerId, walletId });
    return wallet.active ? wallet : null;
  } catch (error) {
    if (isAppError(error) && error.code === 'WALLET_NOT_FOUND') return null;
    throw error;
  }
}

export class CreateUsdtSendUseCase {
  constructor(private readonly deps: CreateUsdtSendDependencies) {}

  async execute(command: CreateUsdtSendCommand): Promise<{ send: UsdtSendRecord; replayed: boolean }> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const request = parseUsdtSendRequest(command);
    const requestHash = usdtSendRequestHash(request);
    const { manager } = this.deps.dataSource;
    const result = await createIdempotently(requestHash, {
      findByKey: () => this.deps.sends.findByKey(manager, command.partnerId, request.idempotencyKey),
      reread: (existing) => this.deps.sends.findById(manager, existing.sendId),
      precheck: () => assertWithinSendBounds(request.usdtAmount, { minimumUsdt: this.deps.settings.minimumUsdt, capUsdt: this.deps.settings.capUsdt }),
      claim: () => this.deps.sends.claim(manager, {
        sendId: randomUUID(), partnerId: command.partnerId, idempotencyKey: request.idempotencyKey, requestHash,
        partnerReference: request.partnerReference, destinationWalletId: request.destinationWalletId, usdtAmount: formatAmount(request.usdtAmount, 'USDT'),
      }, this.deps.settings.createLeaseMs),
      create: (claimed) => this.create(claimed, request),
    });
    return { send: result.resource, replayed: result.replayed };
  }

  private async create(send: UsdtSendRecord, request: UsdtSendRequest): Promise<UsdtSendRecord> {
    const undo: Array<() => Promise<void>> = [];
    try {
      const checked = await this.runChecks(send, request, undo);
      return await this.issueCode(send, request, checked);
    } catch (error) {
      await this.compensate(send, undo);
      throw error;
    }
  }

  private async runChecks(send: UsdtSendRecord, request: UsdtSendRequest, undo: Array<() => Promise<void>>) {
    const { deps } = this;
    const wallet = await activeWallet(deps.walletRegistry, send.partnerId, request.destinationWalletId);
    if (!wallet) throw new AppError('WALLET_NOT_FOUND');
    const recipient = await deps.walletRegistry.getCodeRecipient({ partnerId: send.partnerId });
    const accounts = await deps.ledger.getPartnerAccounts({ partnerId: send.partnerId });
    undo.push(() => releaseCapIdempotently(deps.trading, send.sendId));
    await deps.trading.reserveDailyCap({ usageId: send.sendId, partnerId: send.partnerId, source: 'usdt_send', amountUsdt: send.usdtAmount });
    undo.push(() => voidHoldIdempotently(deps.ledger, send.sendId));
    try {
      await deps.ledger.placeHold({
        holdId: send.sendId, accountId: accounts.usdtAccountId, amount: send.usdtAmount, metadata: { sendId: send.sendId, kind: 'usdt_send' },
        owner: holdOwner('usdt_send', send.sendId),
      });
    } catch (error) {
      throw mapHoldRefusal(error, 'INSUFFICIENT_USDT_BALANCE');
    }
    return { recipient, wallet };
  }

  private async issueCode(send: UsdtSendRecord, request: UsdtSendRequest, checked: { recipient: walletRegistry.CodeRecipient; wallet: walletRegistry.WalletStatus }): Promise<UsdtSendRecord> {
    const { deps } = this;
    const confirmationId = randomUUID();
    const code = generateCode();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + deps.settings.codeLifetimeMs);
    await withTransaction(deps.dataSource, async (manager) => {
      await deps.confirmations.insert(manager, {
        confirmationId, partnerId: send.partnerId, subjectType: 'usdt_send', subjectId: send.sendId,
        codeHash: hashCode(deps.settings.codeHashKeyHex, confirmationId, 0, code), deliveredTo: checked.recipient.maskedEmail,
        expiresAt, resendAvailableAt: new Date(now.getTime() + resendCooldownMs(0, deps.settings.timeScale)),
      });
      if (!(await deps.sends.markAwaitingConfirmation(manager, send.sendId, confirmationId, expiresAt, checked.wallet.address))) throw new AppError('SERVICE_UNAVAILABLE');
      await deps.codes.send({
        confirmationId, issue: 0, partnerId: send.partnerId, recipient: checked.recipient.email, code, kind: 'usdt_send_confirmation',
        subjectType: 'usdt_send', subjectId: send.sendId,
        variables: { amount: formatAmount(request.usdtAmount, 'USDT'), address: checked.wallet.address, expiresAt: expiresAt.toISOString() },
      });
    });
    deps.logger.info('usdt send awaiting confirmation', { sendId: send.sendId, confirmationId });
    const created = await deps.sends.findById(deps.dataSource.manager, send.sendId);
    if (!created) throw new Error('usdt send vanished after its create committed');
    return created;
  }

  /** Best effort: what cannot be undone now is undone by the scheduler when the create's lease passes. */
  private async compensate(send: UsdtSendRecord, undo: Array<() => Promise<void>>): Promise<void> {
    try {
      for (const step of undo.reverse()) await step();
      await this.deps.sends.deleteCreating(this.deps.dataSource.manager, send.sendId);
    } catch (error) {
      this.deps.logger.warn('refused usdt send not yet undone; the scheduler finishes it', { sendId: send.sendId, error });
    }
  }
}
