/**
 * The time-driven steps of a USDT send, run by the durable scheduler:
 * - creating past its lease, or awaiting_confirmation past the code's expiry:
 *   undone or expired exactly as a transfer is (usecases/shared/unconfirmed-steps.ts);
 * - confirmed, not yet with the chain: the wallet is asked again (not active:
 *   failed USDT_SEND_DESTINATION_NOT_ACTIVE), then the custodian sends,
 *   idempotent on the send id; refused: failed with its reason;
 * - confirmed and with the chain: its status is read until confirmed
 *   (the hold posted to chain clearing, usdt_send.settled) or failed.
 * A failure voids the hold and releases the cap BEFORE usdt_send.failed is
 * enqueued. Every step is safe to run again. No call to the custodian, the
 * ledger or trading is made inside a transaction: each is made first,
 * idempotent on the send id (the custodian sends an id once and answers a
 * repeat alike; the ledger posts or voids the hold of that id once), and its
 * result is then committed in one short transaction fenced by the step's
 * lease (the row's timer must still read this owner's token). An owner that
 * stalled past its lease may have made the call, but its commit fails and it
 * does nothing more; the new owner repeats the call with the same id and
 * commits once. Outcomes read from the chain are the same for every owner; a
 * failure decided here (the wallet no longer active) is committed first
 * (decided_failure_reason on the confirmed row, fenced) and only then is the hold
 * voided, so an owner whose lease passed, while the new owner may have
 * handed the send to the chain, voids nothing; a send with a decided failure
 * is never handed to the chain.
 */
import { enqueueEvent } from '@platform/events';
import type { EntityManager, StepLease } from '@platform/persistence';
import type { ChainCustodian } from '../../adapters/chain/chain-custodian';
import type { LedgerApi, ServiceAccounts, WalletRegistryApi } from '../../adapters/peers/peers';
import type { UsdtSendRecord, UsdtSendsRepository } from '../../persistence/usdt-sends.repository';
import { activeWallet } from '../create-usdt-send/create-usdt-send.usecase';
import { UnconfirmedSteps, UnconfirmedStepsDependencies } from '../shared/unconfirmed-steps';

type SendOutcome = { status: 'settled'; settledAt: Date } | { status: 'failed'; failureReason: string };

export interface UsdtSendStepsDependencies extends UnconfirmedStepsDependencies {
  sends: UsdtSendsRepository;
  ledger: Pick<LedgerApi, 'voidHold' | 'getHold' | 'postHold'>;
  walletRegistry: Pick<WalletRegistryApi, 'getWalletStatus'>;
  chain: ChainCustodian;
  serviceAccounts: ServiceAccounts;
  /** How soon a submitted send's chain status is read again. */
  statusPollMs: number;
}

export class UsdtSendSteps {
  private readonly unconfirmed: UnconfirmedSteps<UsdtSendRecord>;

  constructor(private readonly deps: UsdtSendStepsDependencies) {
    this.unconfirmed = new UnconfirmedSteps(deps, {
      rows: deps.sends,
      subjectType: 'usdt_send',
      noun: 'usdt send',
      idField: 'sendId',
      idOf: (send) => send.sendId,
    });
  }

  async run(send: UsdtSendRecord, lease: StepLease): Promise<void> {
    if (send.status === 'creating') return this.unconfirmed.abandon(send);
    if (send.status === 'awaiting_confirmation') return this.unconfirmed.expire(send);
    if (send.status === 'confirmed') return send.chainSubmittedAt ? this.poll(send, lease) : this.release(send, lease);
    // A final send is never due: nothing to do.
  }

  private async release(send: UsdtSendRecord, lease: StepLease): Promise<void> {
    // A failure decided by an earlier owner: the hold is given back, the chain never asked.
    if (send.decidedFailureReason) return this.fail(send, send.decidedFailureReason, lease);
    const wallet = await activeWallet(this.deps.walletRegistry, send.partnerId, send.destinationWalletId);
    if (!wallet) return this.decideFailure(send, 'USDT_SEND_DESTINATION_NOT_ACTIVE', lease);
    if (!lease.held) return; // another replica has the send now, and submits it itself
    // Asked outside any transaction: the custodian sends a send id once and answers a repeat
    // alike, so an owner whose lease passed meanwhile sends nothing new, and its commit fails.
    const submittedAt = new Date();
    const answer = await this.deps.chain.send({
      reference: send.sendId,
      toAddress: wallet.address,
      usdtAmount: send.usdtAmount,
    });
    if (answer.outcome === 'rejected') return this.fail(send, answer.failureReason, lease);
    await lease.commit((manager) =>
      this.deps.sends.markSubmitted(
        manager,
        send.sendId,
        wallet.address,
        submittedAt,
        new Date(submittedAt.getTime() + this.deps.statusPollMs),
      ),
    );
  }

  /**
   * A failure found here, not by the chain: committed first behind the fence
   * (the send is then never handed to the chain), and only then the hold given
   * back. An owner whose lease passed commits nothing and so voids nothing.
   */
  private async decideFailure(send: UsdtSendRecord, failureReason: string, lease: StepLease): Promise<void> {
    const decided = await lease.commit((manager) => this.deps.sends.decideFailure(manager, send.sendId, failureReason));
    if (!decided) return; // handed to the chain meanwhile: its status decides
    await this.fail(send, failureReason, lease);
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
    await this.finish(send, { status: 'failed', failureReason }, lease, () => this.unconfirmed.giveBack(send));
  }

  /**
   * The hold resolved (`resolveHold`: posted, or voided with the cap given
   * back; idempotent on the send id, and for the same outcome whichever owner
   * runs it), then the outcome recorded with its event in one short
   * transaction behind the step's fence.
   */
  private async finish(
    send: UsdtSendRecord,
    outcome: SendOutcome,
    lease: StepLease,
    resolveHold: () => Promise<void>,
  ): Promise<void> {
    if (!lease.held) return; // another replica has the send now, and finishes it itself
    await resolveHold();
    await lease.commit((manager) => this.record(manager, send, outcome));
    this.deps.logger.info('usdt send completed', { sendId: send.sendId, status: outcome.status });
  }

  /** The outcome and its event, inside the transaction behind the send's fence. */
  private async record(manager: EntityManager, send: UsdtSendRecord, outcome: SendOutcome): Promise<void> {
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
  }
}
