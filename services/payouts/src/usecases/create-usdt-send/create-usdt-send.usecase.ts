/**
 * POST /v1/usdt/sends. Idempotent as transfers are (claimIdempotently). A
 * saga of named steps: the destination must be an active wallet of the
 * partner (wallet registry; asked again at release), the code recipient, the
 * shared daily cap (trading values the USDT at the live bid;
 * ORDER_DAILY_CAP_RATE_UNAVAILABLE without one), the hold on the USDT balance
 * (ledger), the code (notifier). A refusal undoes what was done and frees the
 * key; an attempt given up midway is taken over by a repeat, as a transfer's
 * is. Nothing reaches the chain before confirmation.
 */
import { randomUUID } from 'node:crypto';
import { AppError, isAppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import { claimIdempotently, StepLease } from '@platform/persistence';
import type { DataSource } from '@platform/persistence';
import { Saga } from '@platform/saga';
import type { ConfirmationCodeSender } from '../../adapters/peers/confirmation-code-sender';
import type {
  CodeRecipient,
  LedgerApi,
  TradingLimitsApi,
  WalletRegistryApi,
  WalletStatus,
} from '../../adapters/peers/peers';
import { holdOwner } from '../../domain/hold-owner';
import {
  assertWithinSendBounds,
  parseUsdtSendRequest,
  UsdtSendRequest,
  usdtSendRequestHash,
} from '../../domain/usdt-send-request';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type { UsdtSendRecord, UsdtSendsRepository } from '../../persistence/usdt-sends.repository';
import {
  claimedRowStep,
  giveBackCreate,
  issueConfirmationCode,
  placeHoldStep,
  reserveDailyCapStep,
  takeOverAbandoned,
  CreateLeaseSettings,
  createUnderHeldClaim,
  fenceCreate,
} from '../shared/create-steps';

export interface CreateUsdtSendSettings extends CreateLeaseSettings {
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
export async function activeWallet(
  registry: Pick<WalletRegistryApi, 'getWalletStatus'>,
  partnerId: string,
  walletId: string,
): Promise<WalletStatus | null> {
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
    const result = await claimIdempotently({
      requestHash,
      find: () => this.deps.sends.findByKey(manager, command.partnerId, request.idempotencyKey),
      reread: (existing) => this.deps.sends.findById(manager, existing.sendId),
      pending: (row) => row.status === 'creating',
      precheck: () =>
        assertWithinSendBounds(request.usdtAmount, {
          minimumUsdt: this.deps.settings.minimumUsdt,
          capUsdt: this.deps.settings.capUsdt,
        }),
      claim: () =>
        this.deps.sends.claim(
          manager,
          {
            sendId: randomUUID(),
            partnerId: command.partnerId,
            idempotencyKey: request.idempotencyKey,
            requestHash,
            partnerReference: request.partnerReference,
            destinationWalletId: request.destinationWalletId,
            usdtAmount: formatAmount(request.usdtAmount, 'USDT'),
          },
          this.deps.settings.createLeaseMs,
        ),
      takeOver: (row) => this.takeOver(row),
      create: (claimed) =>
        createUnderHeldClaim(
          this.deps,
          { rows: this.deps.sends.dueRows, id: claimed.sendId, token: claimed.leaseToken },
          (held) => this.deps.sends.releaseCreating(held, claimed.sendId),
          (lease) => this.create(claimed, request, lease),
        ),
    });
    return { send: result.resource, replayed: result.replayed };
  }

  /** An attempt under this key that its owner gave up: its hold and cap given back, its row deleted. */
  private takeOver(abandoned: UsdtSendRecord): Promise<boolean> {
    const { deps } = this;
    const { manager } = deps.dataSource;
    const id = abandoned.sendId;
    return takeOverAbandoned({
      claim: () => deps.sends.claimAbandoned(manager, id, deps.settings.createLeaseMs),
      undo: async () => {
        await giveBackCreate(deps.ledger, deps.trading, id);
        await deps.sends.deleteCreating(manager, id);
        deps.logger.warn('abandoned usdt send create taken over by a repeat', { sendId: id });
      },
      release: () => deps.sends.releaseCreating(manager, id),
    });
  }

  /** The checks as a saga, then the code; a refusal undoes what was done, newest first, and frees the key. */
  private async create(send: UsdtSendRecord, request: UsdtSendRequest, lease: StepLease): Promise<UsdtSendRecord> {
    const { deps } = this;
    const checked: { wallet: WalletStatus | null; recipient: CodeRecipient | null; usdtAccountId: string } = {
      wallet: null,
      recipient: null,
      usdtAccountId: '',
    };
    const outcome: { created: UsdtSendRecord | null } = { created: null };
    const saga = new Saga(({ error }) =>
      deps.logger.warn('refused usdt send not yet undone; the scheduler finishes it', { sendId: send.sendId, error }),
    );
    await saga.run([
      claimedRowStep(() => deps.sends.deleteCreating(deps.dataSource.manager, send.sendId)),
      {
        name: 'find the active wallet',
        run: async () => {
          checked.wallet = await this.activeDestination(send, request);
        },
      },
      {
        name: 'find the code recipient',
        run: async () => {
          checked.recipient = await deps.walletRegistry.getCodeRecipient({ partnerId: send.partnerId });
        },
      },
      {
        name: 'find the USDT account',
        run: async () => {
          checked.usdtAccountId = (await deps.ledger.getPartnerAccounts({ partnerId: send.partnerId })).usdtAccountId;
        },
      },
      reserveDailyCapStep(deps.trading, {
        usageId: send.sendId,
        partnerId: send.partnerId,
        source: 'usdt_send',
        amountUsdt: send.usdtAmount,
      }),
      placeHoldStep(
        deps.ledger,
        send.sendId,
        () => ({
          accountId: checked.usdtAccountId,
          amount: send.usdtAmount,
          metadata: { sendId: send.sendId, kind: 'usdt_send' },
          owner: holdOwner('usdt_send', send.sendId),
        }),
        'INSUFFICIENT_USDT_BALANCE',
      ),
      {
        name: 'issue the confirmation code',
        run: async () => {
          outcome.created = await this.issueCode(send, request, checked.recipient!, checked.wallet!, lease);
        },
      },
    ]);
    return outcome.created!;
  }

  private async activeDestination(send: UsdtSendRecord, request: UsdtSendRequest): Promise<WalletStatus> {
    const wallet = await activeWallet(this.deps.walletRegistry, send.partnerId, request.destinationWalletId);
    if (!wallet) throw new AppError('WALLET_NOT_FOUND');
    return wallet;
  }

  private async issueCode(
    send: UsdtSendRecord,
    request: UsdtSendRequest,
    recipient: CodeRecipient,
    wallet: WalletStatus,
    lease: StepLease,
  ): Promise<UsdtSendRecord> {
    const { deps } = this;
    const confirmationId = await issueConfirmationCode(deps, {
      partnerId: send.partnerId,
      subjectType: 'usdt_send',
      subjectId: send.sendId,
      kind: 'usdt_send_confirmation',
      recipient,
      variables: (expiresAt) => ({
        amount: formatAmount(request.usdtAmount, 'USDT'),
        address: wallet.address,
        expiresAt: expiresAt.toISOString(),
      }),
      markAwaiting: async (manager, id, expiresAt) => {
        await fenceCreate(lease, manager);
        return deps.sends.markAwaitingConfirmation(manager, send.sendId, id, expiresAt, wallet.address);
      },
    });
    deps.logger.info('usdt send awaiting confirmation', { sendId: send.sendId, confirmationId });
    const created = await deps.sends.findById(deps.dataSource.manager, send.sendId);
    if (!created) throw new Error('usdt send vanished after its create committed');
    return created;
  }
}
