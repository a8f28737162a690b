/**
 * POST /v1/transfers/batch (spec sections 2 to 4). At most BATCH_ITEMS_MAX
 * items, each validated and checked exactly as a single transfer would be
 * (CreateTransferUseCase's checks); a refused item keeps its failure code and
 * holds nothing, the others proceed under ONE confirmation code
 * (subjectType transfer_batch) sent to the administrator. Idempotent on the
 * batch's idempotencyKey like a single create (createIdempotently). A
 * dependency failing midway (503) undoes every accepted item.
 */
import { randomUUID } from 'node:crypto';
import { sha256Hex } from '@platform/crypto';
import { AppError, isAppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { walletRegistry } from '@platform/proto';
import type { ConfirmationCodeSender } from '../../adapters/peers/confirmation-code-sender';
import type { WalletRegistryApi } from '../../adapters/peers/peers';
import { generateCode, hashCode, resendCooldownMs } from '../../domain/confirmation-code';
import { isUuid } from '../../domain/ids';
import { IDEMPOTENCY_KEY_PATTERN, parseTransferRequest, TransferRequest, TransferRequestInput, transferRequestHash } from '../../domain/transfer-request';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type { BatchItemRecord, TransferBatchesRepository, TransferBatchRecord } from '../../persistence/transfer-batches.repository';
import type { TransferRecord, TransfersRepository } from '../../persistence/transfers.repository';
import type { CreateTransferUseCase } from '../create-transfer/create-transfer.usecase';
import { createIdempotently } from '../idempotent-create';

/** Items per batch: each runs the single-transfer checks in turn, inside the gateway's 5 s deadline. */
export const BATCH_ITEMS_MAX = 20;

export interface CreateTransferBatchDependencies {
  dataSource: DataSource;
  batches: TransferBatchesRepository;
  transfers: TransfersRepository;
  confirmations: ConfirmationsRepository;
  single: CreateTransferUseCase;
  walletRegistry: Pick<WalletRegistryApi, 'getCodeRecipient'>;
  codes: ConfirmationCodeSender;
  logger: Logger;
  settings: { perTransferCapKesExceeded: (request: TransferRequest) => boolean; codeLifetimeMs: number; timeScale: number; createLeaseMs: number; codeHashKeyHex: string };
}

type ParsedItem = { index: number; key: string; request: TransferRequest } | { index: number; key: string; refusal: string };
interface Accepted { index: number; transfer: TransferRecord; undo: Array<() => Promise<void>> }

function parseItems(items: TransferRequestInput[]): ParsedItem[] {
  const bad = items.flatMap((item, index) => (IDEMPOTENCY_KEY_PATTERN.test(item.idempotencyKey) ? [] : [`items[${index}].idempotencyKey`]));
  const keys = items.map((item) => item.idempotencyKey);
  keys.forEach((key, index) => { if (keys.indexOf(key) !== index) bad.push(`items[${index}].idempotencyKey`); });
  if (bad.length > 0) throw validationFailed(bad);
  return items.map((item, index) => {
    try {
      return { index, key: item.idempotencyKey, request: parseTransferRequest(item) };
    } catch (error) {
      if (isAppError(error)) return { index, key: item.idempotencyKey, refusal: error.code };
      throw error;
    }
  });
}

function batchHash(parsed: ParsedItem[], raw: TransferRequestInput[]): string {
  return sha256Hex(JSON.stringify(parsed.map((item) => ('request' in item ? transferRequestHash(item.request) : JSON.stringify(raw[item.index])))));
}

export class CreateTransferBatchUseCase {
  constructor(private readonly deps: CreateTransferBatchDependencies) {}

  async execute(command: { partnerId: string; idempotencyKey: string; items: TransferRequestInput[] }): Promise<{ batch: TransferBatchRecord; replayed: boolean }> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const bad: string[] = [];
    if (!IDEMPOTENCY_KEY_PATTERN.test(command.idempotencyKey)) bad.push('idempotencyKey');
    if (command.items.length === 0 || command.items.length > BATCH_ITEMS_MAX) bad.push('items');
    if (bad.length > 0) throw validationFailed(bad);
    const parsed = parseItems(command.items);
    const requestHash = batchHash(parsed, command.items);
    const { manager } = this.deps.dataSource;
    const result = await createIdempotently(requestHash, {
      findByKey: () => this.deps.batches.findByKey(manager, command.partnerId, command.idempotencyKey),
      reread: (existing) => this.deps.batches.find(manager, command.partnerId, existing.batchId),
      precheck: () => undefined,
      // Twice a transfer's lease: the scheduler undoes abandoned items before their batch.
      claim: () => this.deps.batches.claim(manager, { batchId: randomUUID(), partnerId: command.partnerId, idempotencyKey: command.idempotencyKey, requestHash, itemCount: parsed.length },
        this.deps.settings.createLeaseMs * 2),
      create: (claimed) => this.create(claimed, parsed),
    });
    return { batch: result.resource, replayed: result.replayed };
  }

  private async create(batch: TransferBatchRecord, parsed: ParsedItem[]): Promise<TransferBatchRecord> {
    const recipient = await this.deps.walletRegistry.getCodeRecipient({ partnerId: batch.partnerId });
    const accepted: Accepted[] = [];
    const items: BatchItemRecord[] = [];
    try {
      for (const item of parsed) items.push(await this.runItem(batch, item, accepted));
      await this.finish(batch, items, accepted, recipient);
    } catch (error) {
      for (const item of accepted) await this.deps.single.compensate(item.transfer, item.undo);
      await this.deps.batches.deleteCreating(this.deps.dataSource.manager, batch.batchId).catch(() => undefined);
      throw error;
    }
    const created = await this.deps.batches.find(this.deps.dataSource.manager, batch.partnerId, batch.batchId);
    if (!created) throw new Error('batch vanished after its create committed');
    return created;
  }

  /** One item, as a single transfer: a partner-facing refusal is kept on the item; a dependency failure aborts the batch. */
  private async runItem(batch: TransferBatchRecord, item: ParsedItem, accepted: Accepted[]): Promise<BatchItemRecord> {
    const refused = (failureCode: string): BatchItemRecord => ({ itemIndex: item.index, idempotencyKey: item.key, transferId: null, failureCode });
    if ('refusal' in item) return refused(item.refusal);
    if (this.deps.settings.perTransferCapKesExceeded(item.request)) return refused('TRANSFER_EXCEEDS_PER_TRANSFER_CAP');
    const row = this.deps.single.newTransfer(batch.partnerId, item.request, transferRequestHash(item.request));
    const transfer = await this.deps.transfers.claim(this.deps.dataSource.manager, row, this.deps.settings.createLeaseMs, batch.batchId);
    if (!transfer) throw new Error(`batch ${batch.batchId} item key claimed twice`);
    const undo: Array<() => Promise<void>> = [];
    try {
      await this.deps.single.runChecks(transfer, item.request, undo);
    } catch (error) {
      await this.deps.single.compensate(transfer, undo);
      if (isAppError(error) && error.httpStatus < 500) return refused(error.code);
      throw error;
    }
    accepted.push({ index: item.index, transfer, undo });
    return { itemIndex: item.index, idempotencyKey: item.key, transferId: transfer.transferId, failureCode: null };
  }

  private async finish(batch: TransferBatchRecord, items: BatchItemRecord[], accepted: Accepted[], recipient: walletRegistry.CodeRecipient): Promise<void> {
    const { deps } = this;
    if (accepted.length === 0) {
      // Nothing to confirm: no code is sent; the batch reads `failed`.
      await withTransaction(deps.dataSource, async (manager) => {
        if (!(await deps.batches.markCreated(manager, batch.batchId, null, items))) throw new AppError('SERVICE_UNAVAILABLE');
      });
      return;
    }
    const confirmationId = randomUUID();
    const code = generateCode();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + deps.settings.codeLifetimeMs);
    await withTransaction(deps.dataSource, async (manager) => {
      await deps.confirmations.insert(manager, {
        confirmationId, partnerId: batch.partnerId, subjectType: 'transfer_batch', subjectId: batch.batchId,
        codeHash: hashCode(deps.settings.codeHashKeyHex, confirmationId, 0, code), deliveredTo: recipient.maskedEmail,
        expiresAt, resendAvailableAt: new Date(now.getTime() + resendCooldownMs(0, deps.settings.timeScale)),
      });
      for (const item of accepted) {
        if (!(await deps.transfers.markAwaitingConfirmation(manager, item.transfer.transferId, confirmationId, expiresAt))) throw new AppError('SERVICE_UNAVAILABLE');
      }
      if (!(await deps.batches.markCreated(manager, batch.batchId, confirmationId, items))) throw new AppError('SERVICE_UNAVAILABLE');
      await deps.codes.send({
        confirmationId, issue: 0, partnerId: batch.partnerId, recipient: recipient.email, code, kind: 'batch_confirmation',
        subjectType: 'transfer_batch', subjectId: batch.batchId, variables: { itemCount: String(accepted.length), expiresAt: expiresAt.toISOString() },
      });
    });
    deps.logger.info('transfer batch awaiting confirmation', { batchId: batch.batchId, confirmationId, accepted: accepted.length, refused: items.length - accepted.length });
  }
}
