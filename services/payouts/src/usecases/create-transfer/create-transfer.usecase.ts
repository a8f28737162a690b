/**
 * POST /v1/transfers (spec section 4; contract decisions sections 5 and 9).
 * The idempotency key is claimed first, by a unique index, so concurrent
 * twins make one transfer: the loser waits for the winner and answers its
 * transfer (replayed), or IDEMPOTENCY_KEY_REUSED for another body. Then, as
 * a saga recording each compensation: name lookup, code recipient, the shared
 * daily cap (trading), the hold of amount + fee (ledger), the code (notifier).
 * A refusal undoes what was done and frees the key; a create that dies midway
 * is undone by the scheduler once its lease passes. Nothing reaches the bank.
 * The name lookup only records what the bank holds: a name the bank does not
 * match is never refused here; the bank refuses it when the confirmed
 * transfer is handed to it (transfer.failed, TRANSFER_NAME_MISMATCH).
 */
import { randomUUID } from 'node:crypto';
import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { walletRegistry } from '@platform/proto';
import type { BankAdapter } from '../../adapters/bank/bank';
import type { ConfirmationCodeSender } from '../../adapters/peers/confirmation-code-sender';
import { mapHoldRefusal, releaseCapIdempotently, voidHoldIdempotently } from '../../adapters/peers/holds';
import type { LedgerApi, TradingLimitsApi, WalletRegistryApi } from '../../adapters/peers/peers';
import { generateCode, hashCode, resendCooldownMs } from '../../domain/confirmation-code';
import { holdOwner } from '../../domain/hold-owner';
import { isUuid, maskAccountNumber } from '../../domain/ids';
import { holdAmountKes } from '../../domain/transfer-fee';
import { parseTransferRequest, TransferRequest, TransferRequestInput, transferRequestHash } from '../../domain/transfer-request';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type { NewTransfer, TransferRecord, TransfersRepository } from '../../persistence/transfers.repository';
import { createIdempotently } from '../idempotent-create';

type CodeRecipient = walletRegistry.CodeRecipient;

export interface CreateTransferSettings {
  feeKes: Big;
  perTransferCapKes: Big;
  codeLifetimeMs: number;
  timeScale: number;
  createLeaseMs: number;
  codeHashKeyHex: string;
}

export interface CreateTransferDependencies {
  dataSource: DataSource;
  transfers: TransfersRepository;
  confirmations: ConfirmationsRepository;
  bank: Pick<BankAdapter, 'verifyName'>;
  ledger: Pick<LedgerApi, 'getPartnerAccounts' | 'placeHold' | 'voidHold' | 'getHold'>;
  trading: TradingLimitsApi;
  walletRegistry: Pick<WalletRegistryApi, 'getCodeRecipient'>;
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
    const result = await createIdempotently(requestHash, {
      findByKey: () => this.deps.transfers.findByKey(manager, command.partnerId, request.idempotencyKey),
      reread: (existing) => this.deps.transfers.findById(manager, existing.transferId),
      precheck: () => {
        if (request.amountKes.gt(this.deps.settings.perTransferCapKes)) throw new AppError('TRANSFER_EXCEEDS_PER_TRANSFER_CAP');
      },
      claim: () => this.deps.transfers.claim(manager, this.newTransfer(command.partnerId, request, requestHash), this.deps.settings.createLeaseMs),
      create: (claimed) => this.create(claimed, request),
    });
    return { transfer: result.resource, replayed: result.replayed };
  }

  /** The row a transfer (or a batch item) claims; also used by CreateTransferBatchUseCase. */
  newTransfer(partnerId: string, request: TransferRequest, requestHash: string): NewTransfer {
    return {
      transferId: randomUUID(),
      partnerId,
      idempotencyKey: request.idempotencyKey,
      requestHash,
      partnerReference: request.partnerReference,
      rail: request.rail,
      accountNumber: request.accountNumber,
      accountName: request.accountName,
      bankCode: request.bankCode,
      amountKes: formatAmount(request.amountKes, 'KES'),
      feeKes: formatAmount(this.deps.settings.feeKes, 'KES'),
    };
  }

  private async create(transfer: TransferRecord, request: TransferRequest): Promise<TransferRecord> {
    const undo: Array<() => Promise<void>> = [];
    try {
      const recipient = await this.runChecks(transfer, request, undo);
      return await this.issueCode(transfer, request, recipient);
    } catch (error) {
      await this.compensate(transfer, undo);
      throw error;
    }
  }

  /** Name lookup, recipient, daily cap and hold, recording each compensation in `undo` (batch items run the same). */
  async runChecks(transfer: TransferRecord, request: TransferRequest, undo: Array<() => Promise<void>>): Promise<CodeRecipient> {
    const { deps } = this;
    const verification = await deps.bank.verifyName({ rail: request.rail, accountNumber: request.accountNumber, accountName: request.accountName, bankCode: request.bankCode });
    const accounts = await deps.ledger.getPartnerAccounts({ partnerId: transfer.partnerId });
    await deps.transfers.recordVerification(deps.dataSource.manager, transfer.transferId, verification.outcome,
      verification.outcome === 'verified' ? verification.accountName : null, accounts.kesAccountId);
    // No administrator: refused before any value is held.
    const recipient = await deps.walletRegistry.getCodeRecipient({ partnerId: transfer.partnerId });
    undo.push(() => releaseCapIdempotently(deps.trading, transfer.transferId));
    await deps.trading.reserveDailyCap({ usageId: transfer.transferId, partnerId: transfer.partnerId, source: 'transfer', amountKes: transfer.amountKes });
    undo.push(() => voidHoldIdempotently(deps.ledger, transfer.transferId));
    const holdKes = formatAmount(holdAmountKes(request.amountKes, new Big(transfer.feeKes)), 'KES');
    try {
      await deps.ledger.placeHold({
        holdId: transfer.transferId, accountId: accounts.kesAccountId, amount: holdKes, metadata: { transferId: transfer.transferId, kind: 'transfer' },
        owner: holdOwner('transfer', transfer.transferId),
      });
    } catch (error) {
      throw mapHoldRefusal(error, 'INSUFFICIENT_KES_BALANCE');
    }
    return recipient;
  }

  /** The code goes out inside the transaction that makes the transfer visible: a notifier failure leaves nothing half-done. */
  private async issueCode(transfer: TransferRecord, request: TransferRequest, recipient: CodeRecipient): Promise<TransferRecord> {
    const { deps } = this;
    const confirmationId = randomUUID();
    const code = generateCode();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + deps.settings.codeLifetimeMs);
    await withTransaction(deps.dataSource, async (manager) => {
      await deps.confirmations.insert(manager, {
        confirmationId, partnerId: transfer.partnerId, subjectType: 'transfer', subjectId: transfer.transferId,
        codeHash: hashCode(deps.settings.codeHashKeyHex, confirmationId, 0, code), deliveredTo: recipient.maskedEmail,
        expiresAt, resendAvailableAt: new Date(now.getTime() + resendCooldownMs(0, deps.settings.timeScale)),
      });
      if (!(await deps.transfers.markAwaitingConfirmation(manager, transfer.transferId, confirmationId, expiresAt))) throw new AppError('SERVICE_UNAVAILABLE');
      await deps.codes.send({
        confirmationId, issue: 0, partnerId: transfer.partnerId, recipient: recipient.email, code, kind: 'transfer_confirmation',
        subjectType: 'transfer', subjectId: transfer.transferId,
        variables: { amount: formatAmount(request.amountKes, 'KES'), currency: 'KES', destination: maskAccountNumber(request.accountNumber), expiresAt: expiresAt.toISOString() },
      });
    });
    deps.logger.info('transfer awaiting confirmation', { transferId: transfer.transferId, confirmationId });
    const created = await deps.transfers.findById(deps.dataSource.manager, transfer.transferId);
    if (!created) throw new Error('transfer vanished after its create committed');
    return created;
  }

  /** Best effort: what cannot be undone now is undone by the scheduler when the create's lease passes. */
  async compensate(transfer: TransferRecord, undo: Array<() => Promise<void>>): Promise<void> {
    try {
      for (const step of undo.reverse()) await step();
      await this.deps.transfers.deleteCreating(this.deps.dataSource.manager, transfer.transferId);
    } catch (error) {
      this.deps.logger.warn('refused transfer not yet undone; the scheduler finishes it', { transferId: transfer.transferId, error });
    }
  }
}
