/**
 * POST /v1/transfers/batch. At most BATCH_ITEMS_MAX items, each validated and
 * checked exactly as a single transfer would be (the shared steps of
 * shared/transfer-checks.ts); a refused item keeps its failure code and holds
 * nothing, the others proceed under ONE confirmation code (subjectType
 * transfer_batch) sent to the administrator. Idempotent on the batch's
 * idempotencyKey like a single create (claimIdempotently). A dependency
 * failing midway (503) undoes every accepted item; what it cannot undo (the
 * peer unreachable) is released at once, items and batch, and a repeat takes
 * the attempt over as a single transfer's repeat does.
 */
import { randomUUID } from 'node:crypto';
import { sha256Hex } from '@platform/crypto';
import { AppError, isAppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import type { Big } from '@platform/money';
import { claimIdempotently, HeldLeases, StepLease, withTransaction } from '@platform/persistence';
import { Saga, SagaStep } from '@platform/saga';
import type { ConfirmationCodeSender } from '../../adapters/peers/confirmation-code-sender';
import {
  IDEMPOTENCY_KEY_PATTERN,
  parseTransferRequest,
  TransferRequest,
  TransferRequestInput,
  transferRequestHash,
} from '../../domain/transfer-request';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type {
  BatchItemRecord,
  TransferBatchesRepository,
  TransferBatchRecord,
} from '../../persistence/transfer-batches.repository';
import type { TransferRecord } from '../../persistence/transfers.repository';
import {
  claimedRowStep,
  giveBackCreate,
  issueConfirmationCode,
  releasingClaimOnFailure,
  takeOverAbandoned,
  fenceCreate,
  releaseHeldClaim,
  underCreateLease,
} from '../shared/create-steps';
import { newTransferRow, TransferCheckDependencies, transferCheckSteps, transferSaga } from '../shared/transfer-checks';
import type { CodeRecipient } from '../../adapters/peers/peers';

/** Items per batch: each runs the single-transfer checks in turn, inside the gateway's 5 s deadline. */
export const BATCH_ITEMS_MAX = 20;

export interface CreateTransferBatchDependencies extends TransferCheckDependencies {
  batches: TransferBatchesRepository;
  confirmations: ConfirmationsRepository;
  codes: ConfirmationCodeSender;
  logger: Logger;
  settings: {
    feeKes: Big;
    perTransferCapKesExceeded: (request: TransferRequest) => boolean;
    codeLifetimeMs: number;
    timeScale: number;
    createLeaseMs: number;
    leaseRenewMs: number;
    codeHashKeyHex: string;
  };
}

type ParsedItem =
  { index: number; key: string; request: TransferRequest } | { index: number; key: string; refusal: string };
/** What the batch's steps found: every item's outcome, and the transfers accepted. */
interface BatchOutcome {
  items: BatchItemRecord[];
  accepted: TransferRecord[];
}

function parseItems(items: TransferRequestInput[]): ParsedItem[] {
  const bad = items.flatMap((item, index) =>
    IDEMPOTENCY_KEY_PATTERN.test(item.idempotencyKey) ? [] : [`items[${index}].idempotencyKey`],
  );
  const keys = items.map((item) => item.idempotencyKey);
  keys.forEach((key, index) => {
    if (keys.indexOf(key) !== index) bad.push(`items[${index}].idempotencyKey`);
  });
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
  return sha256Hex(
    JSON.stringify(
      parsed.map((item) => ('request' in item ? transferRequestHash(item.request) : JSON.stringify(raw[item.index]))),
    ),
  );
}

/** What a running batch create holds: its own row's lease (fenced at the end) and its items' (renewed). */
interface BatchLeases {
  lease: StepLease;
  items: HeldLeases;
}

export class CreateTransferBatchUseCase {
  constructor(private readonly deps: CreateTransferBatchDependencies) {}

  async execute(command: {
    partnerId: string;
    idempotencyKey: string;
    items: TransferRequestInput[];
  }): Promise<{ batch: TransferBatchRecord; replayed: boolean }> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const bad: string[] = [];
    if (!IDEMPOTENCY_KEY_PATTERN.test(command.idempotencyKey)) bad.push('idempotencyKey');
    if (command.items.length === 0 || command.items.length > BATCH_ITEMS_MAX) bad.push('items');
    if (bad.length > 0) throw validationFailed(bad);
    const parsed = parseItems(command.items);
    const requestHash = batchHash(parsed, command.items);
    const { manager } = this.deps.dataSource;
    const result = await claimIdempotently({
      requestHash,
      find: () => this.deps.batches.findByKey(manager, command.partnerId, command.idempotencyKey),
      reread: (existing) => this.deps.batches.find(manager, command.partnerId, existing.batchId),
      pending: (row) => row.status === 'creating',
      // Twice a transfer's lease: the scheduler undoes abandoned items before their batch.
      claim: () =>
        this.deps.batches.claim(
          manager,
          {
            batchId: randomUUID(),
            partnerId: command.partnerId,
            idempotencyKey: command.idempotencyKey,
            requestHash,
            itemCount: parsed.length,
          },
          this.deps.settings.createLeaseMs * 2,
        ),
      takeOver: (row) => this.takeOver(row),
      create: (claimed) =>
        underCreateLease(
          this.deps,
          { rows: this.deps.batches.dueRows, id: claimed.batchId, token: claimed.leaseToken, leaseMultiple: 2 },
          async (lease) => {
            // The items' rows are claimed one by one as the batch runs; renewed with the batch's.
            const items = new HeldLeases(
              this.deps.dataSource,
              this.deps.transfers.dueRows,
              { leaseMs: this.deps.settings.createLeaseMs, renewEveryMs: this.deps.settings.leaseRenewMs },
              this.deps.logger,
            );
            try {
              return await releasingClaimOnFailure(
                () => this.create(claimed, parsed, { lease, items }),
                releaseHeldClaim(lease, (held) => this.deps.batches.releaseCreating(held, claimed.batchId)),
              );
            } finally {
              items.stop();
            }
          },
        ),
    });
    return { batch: result.resource, replayed: result.replayed };
  }

  /** A batch attempt its owner gave up: each unfinished item given back and deleted, then the batch row. */
  private takeOver(abandoned: TransferBatchRecord): Promise<boolean> {
    const { deps } = this;
    const { manager } = deps.dataSource;
    const { batchId } = abandoned;
    return takeOverAbandoned({
      claim: () => deps.batches.claimAbandoned(manager, batchId, deps.settings.createLeaseMs * 2),
      undo: async () => {
        const items = await deps.transfers.listByBatch(manager, batchId);
        for (const item of items.filter((row) => row.status === 'creating')) {
          await giveBackCreate(deps.ledger, deps.trading, item.transferId);
          await deps.transfers.deleteCreating(manager, item.transferId);
        }
        await deps.batches.deleteCreating(manager, batchId);
        deps.logger.warn('abandoned transfer batch create taken over by a repeat', { batchId });
      },
      release: () => deps.batches.releaseCreating(manager, batchId),
    });
  }

  /**
   * The items in turn, then one code for the accepted ones. The code
   * recipient is asked first, outside the saga: a failure there leaves the
   * batch row to the scheduler, as nothing else is held yet.
   */
  private async create(
    batch: TransferBatchRecord,
    parsed: ParsedItem[],
    held: BatchLeases,
  ): Promise<TransferBatchRecord> {
    const { deps } = this;
    const recipient = await deps.walletRegistry.getCodeRecipient({ partnerId: batch.partnerId });
    const outcome: BatchOutcome = { items: [], accepted: [] };
    const saga = new Saga(({ error }) =>
      deps.logger.warn('refused transfer batch not yet undone; the scheduler finishes it', {
        batchId: batch.batchId,
        error,
      }),
    );
    await saga.run([
      // Never fails: the scheduler deletes an abandoned batch row anyway.
      claimedRowStep(() => deps.batches.deleteCreating(deps.dataSource.manager, batch.batchId).catch(() => undefined)),
      ...parsed.map((item) => this.itemStep(batch, item, outcome, held.items)),
      { name: 'issue the confirmation code', run: () => this.finish(batch, outcome, recipient, held) },
    ]);
    const created = await deps.batches.find(deps.dataSource.manager, batch.partnerId, batch.batchId);
    if (!created) throw new Error('batch vanished after its create committed');
    return created;
  }

  /**
   * One item, as a single transfer (shared/transfer-checks.ts): a
   * partner-facing refusal is kept on the item and its own steps undone; a
   * dependency failure aborts the batch. An accepted item's steps are undone
   * when a later step of the batch fails; each item reports its own failure to
   * undo and never stops the others being undone.
   */
  private itemStep(batch: TransferBatchRecord, item: ParsedItem, outcome: BatchOutcome, items: HeldLeases): SagaStep {
    let accepted: Saga | null = null;
    return {
      name: `check item ${item.index}`,
      run: async () => {
        const checked = await this.runItem(batch, item, items);
        outcome.items.push(checked.item);
        if (checked.accepted) {
          accepted = checked.accepted.saga;
          outcome.accepted.push(checked.accepted.transfer);
        }
      },
      compensate: async (cause) => {
        await accepted?.compensate(cause);
      },
    };
  }

  private async runItem(
    batch: TransferBatchRecord,
    item: ParsedItem,
    items: HeldLeases,
  ): Promise<{ item: BatchItemRecord; accepted: { transfer: TransferRecord; saga: Saga } | null }> {
    const { deps } = this;
    const refused = (failureCode: string) => ({
      item: { itemIndex: item.index, idempotencyKey: item.key, transferId: null, failureCode },
      accepted: null,
    });
    if ('refusal' in item) return refused(item.refusal);
    if (deps.settings.perTransferCapKesExceeded(item.request)) return refused('TRANSFER_EXCEEDS_PER_TRANSFER_CAP');
    const row = newTransferRow(batch.partnerId, item.request, transferRequestHash(item.request), deps.settings.feeKes);
    const transfer = await deps.transfers.claim(
      deps.dataSource.manager,
      row,
      deps.settings.createLeaseMs,
      batch.batchId,
    );
    if (!transfer) throw new Error(`batch ${batch.batchId} item key claimed twice`);
    if (!transfer.leaseToken) throw new Error(`batch ${batch.batchId} item claim answered no lease token`);
    items.hold(transfer.transferId, transfer.leaseToken);
    const saga = transferSaga(deps.logger, transfer.transferId);
    try {
      await saga.run(transferCheckSteps(deps, transfer, item.request, { recipient: null }));
    } catch (error) {
      if (isAppError(error) && error.httpStatus < 500) return refused(error.code);
      throw error;
    }
    return {
      item: { itemIndex: item.index, idempotencyKey: item.key, transferId: transfer.transferId, failureCode: null },
      accepted: { transfer, saga },
    };
  }

  private async finish(
    batch: TransferBatchRecord,
    outcome: BatchOutcome,
    recipient: CodeRecipient,
    held: BatchLeases,
  ): Promise<void> {
    const { deps } = this;
    const { lease } = held;
    const { items, accepted } = outcome;
    if (accepted.length === 0) {
      // Nothing to confirm: no code is sent; the batch reads `failed`.
      await withTransaction(deps.dataSource, async (manager) => {
        await fenceCreate(lease, manager);
        if (!(await deps.batches.markCreated(manager, batch.batchId, null, items)))
          throw new AppError('SERVICE_UNAVAILABLE');
      });
      return;
    }
    const confirmationId = await issueConfirmationCode(deps, {
      partnerId: batch.partnerId,
      subjectType: 'transfer_batch',
      subjectId: batch.batchId,
      kind: 'batch_confirmation',
      recipient,
      variables: (expiresAt) => ({ itemCount: String(accepted.length), expiresAt: expiresAt.toISOString() }),
      markAwaiting: async (manager, id, expiresAt) => {
        await fenceCreate(lease, manager);
        for (const transfer of accepted) {
          // Each item by its own token too: the transfer scheduler undoes (voids the hold of) an
          // item whose lease passed, so an item taken over must never be made confirmable.
          await fenceCreate(held.items.stepLease(transfer.transferId), manager);
          if (!(await deps.transfers.markAwaitingConfirmation(manager, transfer.transferId, id, expiresAt)))
            return false;
        }
        return deps.batches.markCreated(manager, batch.batchId, id, items);
      },
    });
    deps.logger.info('transfer batch awaiting confirmation', {
      batchId: batch.batchId,
      confirmationId,
      accepted: accepted.length,
      refused: items.length - accepted.length,
    });
  }
}
