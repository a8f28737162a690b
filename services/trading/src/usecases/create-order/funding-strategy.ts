/**
 * How an order gets its value, one strategy per kind (side × the partner's
 * funding mode). The creation path (create-order.usecase.ts) is the same for
 * every kind; a strategy adds only what its kind does differently, at fixed
 * points of that path:
 *
 *   request fields → account readiness → checks before the per-order cap →
 *   prepare (after every refusal, before the order transaction) → the order
 *   transaction (cap reserved, quote consumed, order inserted) → fund.
 *
 * - debit-first buy: the balance read before, then a KES hold and the bank's
 *   debit after the order exists; a refused hold undoes the order.
 * - pay-in buy: the wallet checked and a payment reference registered before;
 *   the order waits for the partner's payment (the scheduler looks for it).
 * - deposit sell: the order waits for the partner's USDT deposit on chain.
 * - balance sell: the USDT is collected at once with a hold on the partner's
 *   USDT balance; a refused collection rejects the order.
 */
import type { FundingMode, OrderRecord, OrderSide } from '../../domain/order';
import type { PartnerTradingProfile } from '../../persistence/partner-profiles.repository';
import type { NewOrder } from '../../persistence/orders.repository';
import type { QuoteRecord } from '../../persistence/quotes.repository';
import type { LedgerPartnerAccounts } from '../../adapters/peers/peers';

interface CreateOrderReferences {
  partnerId: string;
  quoteId: string;
  partnerReference: string;
}

export interface CreateBuyOrderCommand extends CreateOrderReferences {
  expectedUsdtAmount?: string;
  /** Pay-in partners only (refused for debit-first ones, never ignored). */
  walletId?: string;
  paymentRail?: string;
}

export interface CreateSellOrderCommand extends CreateOrderReferences {
  payoutAccountId: string;
}

export type CreateOrderCommand =
  ({ side: 'buy' } & CreateBuyOrderCommand) | ({ side: 'sell' } & CreateSellOrderCommand);

/** The order, and the refusal code the create answered with when it was refused after the order came to exist. */
export interface OrderResult {
  order: OrderRecord;
  refusalCode: string | null;
}

/** Everything the creation path has read when a strategy is asked. */
export interface OrderIntake {
  command: CreateOrderCommand;
  quote: QuoteRecord;
  profile: PartnerTradingProfile;
  accounts: LedgerPartnerAccounts;
  /** Drawn before prepare: a pay-in reference and every ledger id name it. */
  orderId: string;
  now: Date;
}

/** The columns of a new order that depend on its kind. */
export type FundingFields = Pick<
  NewOrder,
  'status' | 'kesDebitStatus' | 'debitOutcome' | 'depositAddress' | 'sendBefore' | 'payoutAccountId' | 'nextActionAt'
> &
  Partial<Pick<NewOrder, 'walletId' | 'paymentReference' | 'paybill' | 'beneficiaryName' | 'payBefore'>>;

export interface FundingStrategy {
  readonly side: OrderSide;
  readonly fundingMode: FundingMode;
  /** The accounts' read also brings the KES balance (one ledger call for readiness and funds). */
  readonly readsKesBalance?: boolean;
  /** Request fields only this kind takes (or must not be sent), checked once the partner's mode is known. */
  assertRequest(command: CreateOrderCommand): void;
  /** Refusals of the partner's accounts particular to this kind, right after the partner's status. */
  assertAccounts(accounts: LedgerPartnerAccounts): void;
  /** Refusals between the quote's side and the per-order cap (an amount the partner expects, a payout account). */
  assertBeforeCap(intake: Omit<OrderIntake, 'orderId' | 'now'>): Promise<void>;
  /** After every read-only refusal and before the order transaction; answers the kind's columns of the order. */
  prepare(intake: OrderIntake): Promise<FundingFields>;
  /** After the order committed (never on a replay): move its value, undoing what the create did if that is refused. */
  fund(order: OrderRecord, intake: OrderIntake): Promise<OrderResult>;
}

/** The strategy for an order: the side asked for, the mode the partner is configured with. */
export function selectFunding(
  side: OrderSide,
  profile: Pick<PartnerTradingProfile, 'buyMode' | 'sellMode'>,
  strategies: readonly FundingStrategy[],
): FundingStrategy {
  const fundingMode: FundingMode = side === 'buy' ? profile.buyMode : profile.sellMode;
  const strategy = strategies.find((candidate) => candidate.side === side && candidate.fundingMode === fundingMode);
  if (!strategy) throw new Error(`no funding strategy for a ${side} order in mode ${fundingMode}`);
  return strategy;
}
