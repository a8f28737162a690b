/**
 * POST /v1/transfers. The idempotency key is claimed first, by a unique index,
 * so concurrent twins make one transfer: the loser waits for the winner and
 * answers its transfer (replayed), or IDEMPOTENCY_KEY_REUSED for another body.
 * Then a saga (shared/transfer-checks.ts, the steps a batch item runs too):
 * name lookup, code recipient, the shared daily cap (trading), the hold of
 * amount + fee (ledger); then the code (notifier). A refusal undoes what was
 * done and frees the key. A create that cannot undo its steps (a peer
 * unreachable) releases its claim at once, and one whose replica died leaves
 * its lease to pass: a repeat of the request then takes the attempt over
 * (gives back its hold and cap, frees the key) and creates afresh; the
 * scheduler undoes it too when no repeat comes. Nothing reaches the bank.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import { claimIdempotently, StepLease } from '@platform/persistence';
import type { ConfirmationCodeSender } from '../../adapters/peers/confirmation-code-sender';
import { maskAccountNumber } from '../../domain/ids';
import {
  parseTransferRequest,
  TransferRequest,
  TransferRequestInput,
  transferRequestHash,
} from '../../domain/transfer-request';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type { TransferRecord } from '../../persistence/transfers.repository';
import {
  CreateLeaseSettings,
  createUnderHeldClaim,
  fenceCreate,
  giveBackCreate,
  issueConfirmationCode,
  takeOverAbandoned,
} from '../shared/create-steps';
import {
  newTransferRow,
  TransferCheckDependencies,
  TransferChecked,
  transferCheckSteps,
  transferSaga,
} from '../shared/transfer-checks';
import type { CodeRecipient } from '../../adapters/peers/peers';

export interface CreateTransferSettings extends CreateLeaseSettings {
  feeKes: Big;
  perTransferCapKes: Big;
  codeLifetimeMs: number;
  timeScale: number;
  createLeaseMs: number;
  codeHashKeyHex: string;
}

export interface CreateTransferDependencies extends TransferCheckDependencies {
  confirmations: ConfirmationsRepository;
  codes: ConfirmationCodeSender;
  logger: Logger;
  settings: CreateTransferSettings;
}

export type CreateTransferCommand = TransferRequestInput & { partnerId: string };

export class CreateTransferUseCase {
  constructor(private readonly deps: CreateTransferDependencies) {}

  async execute(command: CreateTransferCommand): Promise<{ transfer: TransferRecord; replayed: boolean }> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const request = parseTransferRequest(command);
    const requestHash = transferRequestHash(request);
    const { manager } = this.deps.dataSource;
    const result = await claimIdempotently({
      requestHash,
      find: () => this.deps.transfers.findByKey(manager, command.partnerId, request.idempotencyKey),
      reread: (existing) => this.deps.transfers.findById(manager, existing.transferId),
      pending: (row) => row.status === 'creating',
      precheck: () => {
        if (request.amountKes.gt(this.deps.settings.perTransferCapKes))
          throw new AppError('TRANSFER_EXCEEDS_PER_TRANSFER_CAP');
      },
      claim: () =>
        this.deps.transfers.claim(
          manager,
          newTransferRow(command.partnerId, request, requestHash, this.deps.settings.feeKes),
          this.deps.settings.createLeaseMs,
        ),
      takeOver: (row) => this.takeOver(row),
      create: (claimed) =>
        createUnderHeldClaim(
          this.deps,
          { rows: this.deps.transfers.dueRows, id: claimed.transferId, token: claimed.leaseToken },
          (held) => this.deps.transfers.releaseCreating(held, claimed.transferId),
          (lease) => this.create(claimed, request, lease),
        ),
    });
    return { transfer: result.resource, replayed: result.replayed };
  }

  /** An attempt under this key that its owner gave up: its hold and cap given back, its row deleted. */
  private takeOver(abandoned: TransferRecord): Promise<boolean> {
    const { deps } = this;
    const { manager } = deps.dataSource;
    const id = abandoned.transferId;
    return takeOverAbandoned({
      claim: () => deps.transfers.claimAbandoned(manager, id, deps.settings.createLeaseMs),
      undo: async () => {
        await giveBackCreate(deps.ledger, deps.trading, id);
        await deps.transfers.deleteCreating(manager, id);
        deps.logger.warn('abandoned transfer create taken over by a repeat', { transferId: id });
      },
      release: () => deps.transfers.releaseCreating(manager, id),
    });
  }

  /** The checks, then the code; a refusal undoes what was done, newest first, and frees the key. */
  private async create(transfer: TransferRecord, request: TransferRequest, lease: StepLease): Promise<TransferRecord> {
    const checked: TransferChecked = { recipient: null };
    const outcome: { created: TransferRecord | null } = { created: null };
    await transferSaga(this.deps.logger, transfer.transferId).run([
      ...transferCheckSteps(this.deps, transfer, request, checked),
      {
        name: 'issue the confirmation code',
        run: async () => {
          outcome.created = await this.issueCode(transfer, request, checked.recipient!, lease);
        },
      },
    ]);
    return outcome.created!;
  }

  private async issueCode(
    transfer: TransferRecord,
    request: TransferRequest,
    recipient: CodeRecipient,
    lease: StepLease,
  ): Promise<TransferRecord> {
    const { deps } = this;
    const confirmationId = await issueConfirmationCode(deps, {
      partnerId: transfer.partnerId,
      subjectType: 'transfer',
      subjectId: transfer.transferId,
      kind: 'transfer_confirmation',
      recipient,
      variables: (expiresAt) => ({
        amount: formatAmount(request.amountKes, 'KES'),
        currency: 'KES',
        destination: maskAccountNumber(request.accountNumber),
        expiresAt: expiresAt.toISOString(),
      }),
      markAwaiting: async (manager, id, expiresAt) => {
        await fenceCreate(lease, manager);
        return deps.transfers.markAwaitingConfirmation(manager, transfer.transferId, id, expiresAt);
      },
    });
    deps.logger.info('transfer awaiting confirmation', { transferId: transfer.transferId, confirmationId });
    const created = await deps.transfers.findById(deps.dataSource.manager, transfer.transferId);
    if (!created) throw new Error('transfer vanished after its create committed');
    return created;
  }
}
