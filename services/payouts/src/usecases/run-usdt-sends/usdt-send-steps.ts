/**
 * The time-driven steps of a USDT send, run by the durable scheduler:
 * - creating past its lease: undone (hold voided, cap released, row removed);
 * - awaiting_confirmation past the code's expiry: expired with
 *   confirmation.expired (subjectType usdt_send), hold and cap given back;
 * - confirmed, not yet with the chain: the wallet is asked again (not active:
 *   failed USDT_SEND_DESTINATION_NOT_ACTIVE), then the custodian sends,
 *   idempotent on the send id; refused: failed with its reason;
 * - confirmed and with the chain: its status is read until confirmed
 *   (the hold posted to chain clearing, usdt_send.settled) or failed.
 * A failure voids the hold and releases the cap BEFORE usdt_send.failed is
 * enqueued. Every step is safe to run again. A confirmed send's commits
 * (submitted, rescheduled, settled or failed) are fenced by the step's lease,
 * and so is its hold's resolution (posted or voided inside the fenced
 * transaction): a replica whose lease passed to another moves no money and
 * commits nothing, and one that knows its lease is gone does not ask the
 * custodian at all.
 */
import { enqueueEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager, StepLease } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { ChainCustodian } from '../../adapters/chain/chain-custodian';
import { releaseCapIdempotently, voidHoldIdempotently } from '../../adapters/peers/holds';
import type { LedgerApi, ServiceAccounts, TradingLimitsApi, WalletRegistryApi } from '../../adapters/peers/peers';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import type { UsdtSendRecord, UsdtSendsRepository } from '../../persistence/usdt-sends.repository';
import { activeWallet } from '../create-usdt-send/create-usdt-send.usecase';
import { lapseConfirmation } from '../lapse-confirmation';

type SendOutcome = { status: 'settled'; settledAt: Date } | { status: 'failed'; failureReason: string };

export interface UsdtSendStepsDependencies {
  dataSource: DataSource;
  sends: UsdtSendsRepository;
  confirmations: ConfirmationsRepository;
  ledger: Pick<LedgerApi, 'voidHold' | 'getHold' | 'postHold'>;
  trading: TradingLimitsApi;
  walletRegistry: Pick<WalletRegistryApi, 'getWalletStatus'>;
  chain: ChainCustodian;
  serviceAccounts: ServiceAccounts;
  logger: Logger;
  /** How soon a submitted send's chain status is read again. */
  statusPollMs: number;
}

export class UsdtSendSteps {
  constructor(private readonly deps: UsdtSendStepsDependencies) {}

  async run(send: UsdtSendRecord, lease: StepLease): Promise<void> {
    if (send.status === 'creating') return this.abandon(send);
    if (send.status === 'awaiting_confirmation') return this.expire(send);
    if (send.status === 'confirmed') return send.chainSubmittedAt ? this.poll(send, lease) : this.release(send, lease);
    // A final send is never due: nothing to do.
  }

  private async giveBack(send: UsdtSendRecord): Promise<void> {
    await voidHoldIdempotently(this.deps.ledger, send.sendId);
    await releaseCapIdempotently(this.deps.trading, send.sendId);
  }

  private async abandon(send: UsdtSendRecord): Promise<void> {
    await this.giveBack(send);
    await this.deps.sends.deleteCreating(this.deps.dataSource.manager, send.sendId);
    this.deps.logger.warn('abandoned usdt send create undone', { sendId: send.sendId });
  }

  private async expire(send: UsdtSendRecord): Promise<void> {
    const confirmationId = send.confirmationId;
    if (!confirmationId) throw new Error(`usdt send ${send.sendId} awaits confirmation without one`);
    const lapsed = await lapseConfirmation(
      this.deps.dataSource,
      this.deps.confirmations,
      { partnerId: send.partnerId, confirmationId },
      (manager, expiresAt) => this.deps.sends.rescheduleExpiry(manager, confirmationId, expiresAt),
    );
    if (!lapsed) return;
    await this.giveBack(send);
    await withTransaction(this.deps.dataSource, async (manager) => {
      if (!(await this.deps.sends.markExpired(manager, send.sendId))) return;
      await enqueueEvent(manager, {
        partnerId: send.partnerId,
        type: 'confirmation.expired',
        data: { confirmationId, subjectType: 'usdt_send', subjectId: send.sendId, expiredAt: new Date().toISOString() },
      });
    });
    this.deps.logger.info('usdt send expired: code not confirmed in time', { sendId: send.sendId, confirmationId });
  }

  private async release(send: UsdtSendRecord, lease: StepLease): Promise<void> {
    const wallet = await activeWallet(this.deps.walletRegistry, send.partnerId, send.destinationWalletId);
    if (!wallet) return this.fail(send, 'USDT_SEND_DESTINATION_NOT_ACTIVE', lease);
    if (!lease.held) return; // another replica has the send now, and submits it itself
    // The custodian is asked behind the fence, the send's row locked: an owner whose lease
    // passed hands nothing to the chain, and no other replica can take the row meanwhile.
    await lease.commit(async (manager) => {
      const submittedAt = new Date();
      const answer = await this.deps.chain.send({
        reference: send.sendId,
        toAddress: wallet.address,
        usdtAmount: send.usdtAmount,
      });
      if (answer.outcome === 'rejected')
        return this.finishFenced(manager, send, { status: 'failed', failureReason: answer.failureReason }, () =>
          this.giveBack(send),
        );
      await this.deps.sends.markSubmitted(
        manager,
        send.sendId,
        wallet.address,
        submittedAt,
        new Date(submittedAt.getTime() + this.deps.statusPollMs),
      );
    });
  }

  private async poll(send: UsdtSendRecord, lease: StepLease): Promise<void> {
    const status = await this.deps.chain.status({
      reference: send.sendId,
      submittedAt: new Date(send.chainSubmittedAt!),
    });
    if (status.status === 'pending')
      return lease.commit((manager) =>
        this.deps.sends.reschedule(manager, send.sendId, new Date(Date.now() + this.deps.statusPollMs)),
      );
    if (status.status === 'failed') return this.fail(send, status.failureReason, lease);
    return this.settle(send, lease);
  }

  private async settle(send: UsdtSendRecord, lease: StepLease): Promise<void> {
    await this.finish(send, { status: 'settled', settledAt: new Date() }, lease, async () => {
      await this.deps.ledger.postHold({
        holdId: send.sendId,
        postAmount: send.usdtAmount,
        counterPostings: [
          { accountId: await this.deps.serviceAccounts.id('chain_clearing', 'USDT'), amount: send.usdtAmount },
        ],
        kind: 'usdt_send',
        metadata: { sendId: send.sendId },
      });
    });
  }

  private async fail(send: UsdtSendRecord, failureReason: string, lease: StepLease): Promise<void> {
    await this.finish(send, { status: 'failed', failureReason }, lease, () => this.giveBack(send));
  }

  /**
   * The hold resolved (`resolveHold`: posted, or voided with the cap given
   * back) and the outcome recorded with its event, in one transaction behind
   * the step's fence: the send's row stays locked while its token holds, so
   * an owner whose lease passed (one that found the wallet gone while the new
   * owner had already handed the send to the chain) voids nothing.
   */
  private async finish(
    send: UsdtSendRecord,
    outcome: SendOutcome,
    lease: StepLease,
    resolveHold: () => Promise<void>,
  ): Promise<void> {
    await lease.commit((manager) => this.finishFenced(manager, send, outcome, resolveHold));
  }

  /** `finish`'s work, inside a transaction already behind the send's fence. */
  private async finishFenced(
    manager: EntityManager,
    send: UsdtSendRecord,
    outcome: SendOutcome,
    resolveHold: () => Promise<void>,
  ): Promise<void> {
    await resolveHold();
    if (await this.deps.sends.markOutcome(manager, send.sendId, outcome))
      await enqueueEvent(manager, {
        partnerId: send.partnerId,
        type: outcome.status === 'settled' ? 'usdt_send.settled' : 'usdt_send.failed',
        data: {
          sendId: send.sendId,
          partnerReference: send.partnerReference,
          status: outcome.status,
          amount: { currency: 'USDT', value: send.usdtAmount },
          destinationWalletId: send.destinationWalletId,
          failureReason: outcome.status === 'failed' ? outcome.failureReason : null,
        },
      });
    this.deps.logger.info('usdt send completed', { sendId: send.sendId, status: outcome.status });
  }
}
