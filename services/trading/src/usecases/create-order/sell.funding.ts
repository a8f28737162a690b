/**
 * Sells: the partner's USDT pays, the KES proceeds go to a payout account.
 *
 * - Deposit mode: the order waits awaiting_usdt with the partner's permanent
 *   deposit address and sendBefore. Before the partner is answered, the order's
 *   expectation is registered with the ledger, which then holds the partner's
 *   deposits until a hash names one (usecases/attach-tx-hash) and attributes
 *   them itself; finding the claimed deposit, expiry and the proceeds are the
 *   scheduler's (usecases/advance-sell-order).
 * - Balance mode: the USDT is collected at create with a ledger hold on the
 *   partner's USDT account (hold id = order id), posted when the proceeds are
 *   paid. A refused collection rejects the order (quote consumed, cap given
 *   back, nothing collected, no event).
 */
import { AppError } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, formatAmount } from '@platform/money';
import type { Clock } from '../../domain/clock';
import { orderHoldOwner } from '../../domain/hold-owner';
import { OrderRecord, sandboxCollectionAnswer } from '../../domain/order';
import { isRefusal, OrderTransitions } from '../order-support';
import { expectSellDeposit } from '../fund-sell-deposit/sell-deposit-expectation';
import type { CreateOrderCommand, FundingFields, FundingStrategy, OrderIntake, OrderResult } from './funding-strategy';
import type { LedgerApi, LedgerPartnerAccounts } from '../../adapters/peers/peers';

export interface SellFundingDependencies {
  ledger: Pick<LedgerApi, 'getPayoutDestination' | 'placeHold' | 'expectUsdtDeposit'>;
  transitions: Pick<OrderTransitions, 'record'>;
  clock: Clock;
  /** How long the partner has to send the USDT (already scaled); a balance-mode order's recovery check after it. */
  sendWindowMs: number;
}

/** What both sell modes share: no extra request fields, and an active payout account of the partner's. */
abstract class SellFunding implements FundingStrategy {
  readonly side = 'sell';
  abstract readonly fundingMode: 'deposit' | 'balance';

  constructor(protected readonly deps: SellFundingDependencies) {}

  assertRequest(): void {}

  abstract assertAccounts(accounts: LedgerPartnerAccounts): void;

  async assertBeforeCap(intake: Pick<OrderIntake, 'command'>): Promise<void> {
    const payoutAccountId = payoutAccountOf(intake.command);
    if (!isUuid(payoutAccountId)) throw new AppError('PAYOUT_ACCOUNT_NOT_FOUND');
    const destination = await this.deps.ledger.getPayoutDestination({
      id: payoutAccountId,
      partnerId: intake.command.partnerId,
    });
    if (destination.status !== 'active') throw new AppError('PAYOUT_ACCOUNT_NOT_PAYABLE');
  }

  abstract prepare(intake: OrderIntake): Promise<FundingFields>;

  abstract fund(order: OrderRecord, intake: OrderIntake): Promise<OrderResult>;
}

export class SellDepositFunding extends SellFunding {
  readonly fundingMode = 'deposit';

  assertAccounts(accounts: LedgerPartnerAccounts): void {
    if (!accounts.usdtDepositAddress) throw new AppError('USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED');
  }

  async prepare(intake: OrderIntake): Promise<FundingFields> {
    const sendBefore = new Date(intake.now.getTime() + this.deps.sendWindowMs);
    return {
      status: 'awaiting_usdt',
      kesDebitStatus: null,
      debitOutcome: null,
      depositAddress: intake.accounts.usdtDepositAddress,
      sendBefore,
      payoutAccountId: payoutAccountOf(intake.command),
      // The window's timer: unfunded by then, expired.
      nextActionAt: sendBefore,
    };
  }

  /**
   * The partner sends the USDT later: the order is answered awaiting_usdt once
   * the ledger knows to expect it (so no deposit meant for it is credited to the
   * balance on a guess). Should the ledger not answer, the create fails (a
   * retry by partnerReference answers the order) and the scheduler registers
   * the order at once.
   */
  async fund(order: OrderRecord): Promise<OrderResult> {
    try {
      await expectSellDeposit(this.deps.ledger, order);
    } catch (error) {
      await this.deps.transitions.record(order, {
        from: 'awaiting_usdt',
        changes: { nextActionAt: this.deps.clock.now() },
      });
      throw error;
    }
    return { order, refusalCode: null };
  }
}

export class SellBalanceFunding extends SellFunding {
  readonly fundingMode = 'balance';

  constructor(
    deps: SellFundingDependencies,
    private readonly usdtCustody: 'sandbox' | 'none',
  ) {
    super(deps);
  }

  /** Without a chain custodian nothing can collect the USDT: refused before the quote is consumed. */
  assertAccounts(): void {
    if (this.usdtCustody === 'none') throw new AppError('BRIDGE_NOT_CONFIGURED');
  }

  async prepare(intake: OrderIntake): Promise<FundingFields> {
    return {
      status: 'funds_reserved',
      kesDebitStatus: null,
      // 'pending' until the collection answers; should this process stop first, the scheduler resolves it.
      debitOutcome: 'pending',
      depositAddress: null,
      sendBefore: null,
      payoutAccountId: payoutAccountOf(intake.command),
      nextActionAt: new Date(intake.now.getTime() + this.deps.sendWindowMs),
    };
  }

  async fund(order: OrderRecord, intake: OrderIntake): Promise<OrderResult> {
    return this.collect(order, intake.accounts.usdtAccountId);
  }

  /**
   * Collects the USDT from the custodial balance with a ledger hold (hold id =
   * order id; repeating it is safe, the scheduler resumes with it). Sandbox
   * custody, steered by usdtAmount's last two decimals (documented): `…13`
   * USDT_COLLECTION_FAILED, `…14` WALLET_OWNERSHIP_CHECK_FAILED.
   */
  async collect(order: OrderRecord, usdtAccountId: string): Promise<OrderResult> {
    const custody = sandboxCollectionAnswer(order.usdtAmount);
    if (custody !== null) return this.refuseCollection(order, custody);
    const usdt = formatAmount(new Big(order.usdtAmount), 'USDT');
    try {
      await this.deps.ledger.placeHold({
        holdId: order.orderId,
        accountId: usdtAccountId,
        amount: usdt,
        metadata: { orderId: order.orderId, kind: 'order_sell' },
        owner: orderHoldOwner(order.orderId),
      });
    } catch (error) {
      if (isRefusal(error, 'LEDGER_INSUFFICIENT_FUNDS'))
        return this.refuseCollection(order, 'INSUFFICIENT_USDT_BALANCE');
      throw error;
    }
    const now = this.deps.clock.now();
    const updated = await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      fromDebitOutcome: 'pending',
      changes: { debitOutcome: 'accepted', depositUsdtAmount: usdt, fundsConfirmedAt: now, nextActionAt: now },
      event: 'order.funds_confirmed',
    });
    return { order: updated ?? order, refusalCode: null };
  }

  /** The compensation: nothing was collected, so the order is rejected and its cap given back. */
  private async refuseCollection(
    order: OrderRecord,
    code: 'INSUFFICIENT_USDT_BALANCE' | 'USDT_COLLECTION_FAILED' | 'WALLET_OWNERSHIP_CHECK_FAILED',
  ): Promise<OrderResult> {
    const updated = await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      fromDebitOutcome: 'pending',
      changes: {
        status: 'rejected',
        debitOutcome: 'refused',
        refusalCode: code,
        nextActionAt: null,
        completedAt: this.deps.clock.now(),
      },
      releaseCap: true,
    });
    return { order: updated ?? order, refusalCode: code };
  }
}

function payoutAccountOf(command: CreateOrderCommand): string {
  if (command.side !== 'sell') throw new Error('a sell funding strategy was given a buy');
  return command.payoutAccountId;
}
