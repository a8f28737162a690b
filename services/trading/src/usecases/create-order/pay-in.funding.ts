/**
 * Pay-in buy: the partner pays the order's kesTotalAmount into the paybill
 * with the order's own payment reference, and the bought USDT goes to the
 * partner's active wallet given at create. Before the order exists: custody,
 * the wallet (wallet-registry), the paybill (the ledger's funding
 * instructions), and a fresh payment reference registered with the ledger, so
 * a payment made with it always lands in the partner's KES account. The order
 * is inserted awaiting_payment with payBefore; the scheduler looks for the
 * payment (usecases/advance-pay-in-buy). Nothing is funded at create.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { OrderRecord, PAY_IN_REQUEST_RAIL } from '../../domain/order';
import { newPaymentReference, nextPaymentCheck } from '../../domain/pay-in';
import { isRefusal } from '../order-support';
import { assertExpectedUsdt } from './buy-request';
import type { CreateOrderCommand, FundingFields, FundingStrategy, OrderIntake, OrderResult } from './funding-strategy';
import { assertKesAccountReady } from './order-guards';
import type { LedgerApi, LedgerPartnerAccounts, WalletRegistryApi } from '../../adapters/peers/peers';

/** A freshly drawn reference colliding with a registered one is astronomically rare; a few draws, then a bug. */
const REFERENCE_DRAWS_MAX = 3;

export interface PayInFundingDependencies {
  ledger: Pick<LedgerApi, 'getFundingInstructions' | 'registerPaymentReference'>;
  walletRegistry: WalletRegistryApi;
  /** How long the partner has to pay (already scaled). */
  payWindowMs: number;
  /** How soon an awaiting order's payment is looked for. */
  paymentPollMs: number;
  /** Delivery to a wallet goes through the chain custodian: `none` refuses pay-in buys (BRIDGE_NOT_CONFIGURED). */
  usdtCustody: 'sandbox' | 'none';
}

export class PayInFunding implements FundingStrategy {
  readonly side = 'buy';
  readonly fundingMode = 'pay_in';

  constructor(private readonly deps: PayInFundingDependencies) {}

  /** The fields only pay-in takes: walletId required, paymentRail `mobile_money` when given. */
  assertRequest(command: CreateOrderCommand): void {
    const buy = command.side === 'buy' ? command : { walletId: undefined, paymentRail: undefined };
    const bad: string[] = [];
    if (buy.walletId === undefined || buy.walletId === '') bad.push('walletId');
    if (buy.paymentRail !== undefined && buy.paymentRail !== PAY_IN_REQUEST_RAIL) bad.push('paymentRail');
    if (bad.length > 0) throw validationFailed(bad);
  }

  assertAccounts(accounts: LedgerPartnerAccounts): void {
    assertKesAccountReady(accounts);
  }

  async assertBeforeCap(intake: Pick<OrderIntake, 'command' | 'quote'>): Promise<void> {
    assertExpectedUsdt(intake.command, intake.quote.usdtAmount);
  }

  /** Custody, then the wallet; then the paybill and the order's payment reference, registered before the order exists. */
  async prepare(intake: OrderIntake): Promise<FundingFields> {
    const { partnerId } = intake.command;
    const walletId = walletIdOf(intake.command);
    await this.assertDeliverable(partnerId, walletId);
    const funding = await this.deps.ledger.getFundingInstructions({ partnerId });
    if (!funding.kesEntryAvailable) throw new AppError('PARTNER_VA_ACTIVATING');
    const paymentReference = await this.registerReference(partnerId, intake.orderId);
    const payBefore = new Date(intake.now.getTime() + this.deps.payWindowMs);
    return {
      status: 'awaiting_payment',
      kesDebitStatus: null,
      debitOutcome: null,
      depositAddress: null,
      sendBefore: null,
      payoutAccountId: null,
      nextActionAt: nextPaymentCheck(intake.now, this.deps.paymentPollMs, payBefore),
      walletId,
      paymentReference,
      paybill: funding.paybill,
      beneficiaryName: funding.beneficiaryName,
      payBefore,
    };
  }

  /** The partner pays later: the order is answered awaiting_payment. */
  async fund(order: OrderRecord): Promise<OrderResult> {
    return { order, refusalCode: null };
  }

  private async assertDeliverable(partnerId: string, walletId: string): Promise<void> {
    if (this.deps.usdtCustody === 'none') throw new AppError('BRIDGE_NOT_CONFIGURED');
    if (!isUuid(walletId)) throw new AppError('WALLET_NOT_FOUND');
    const status = await this.deps.walletRegistry.getWalletStatus({ partnerId, walletId });
    if (!status.active) throw new AppError('WALLET_OWNERSHIP_CHECK_FAILED');
  }

  private async registerReference(partnerId: string, orderId: string): Promise<string> {
    for (let draw = 1; ; draw += 1) {
      const reference = newPaymentReference();
      try {
        await this.deps.ledger.registerPaymentReference({ reference, partnerId, orderId });
        return reference;
      } catch (error) {
        if (!isRefusal(error, 'LEDGER_ID_REUSED') || draw >= REFERENCE_DRAWS_MAX) throw error;
      }
    }
  }
}

/** assertRequest has already refused a pay-in buy without one. */
function walletIdOf(command: CreateOrderCommand): string {
  if (command.side !== 'buy' || command.walletId === undefined)
    throw new Error('pay-in buy without a walletId past its request check');
  return command.walletId;
}
