/**
 * Partner action: create an order, buy or sell, whatever its funding. ONE path
 * for every kind; the partner's configured mode picks the funding strategy
 * (funding-strategy.ts), which adds its own checks and moves the value.
 *
 * Refusals in the contract's order: request shape → quote known (404) → the
 * same partnerReference answers the original → kill switch, swaps → partner
 * known → the kind's request fields → partner status → the kind's account
 * checks → treasury → quote side → the kind's checks before the cap
 * (expected amount; payout account) → per-order cap → the kind's preparation
 * (a balance read; a wallet and a payment reference) → then ONE statement,
 * serialised per partnerReference: quote consumed, order inserted, and last
 * the daily cap reserved under the partner's cap window lock (refusals in the
 * same order: daily cap, then quote). The repeat check, the claim of
 * the reference and a concurrent repeat's answer are claimIdempotently's, as
 * for every create. Only then does the strategy fund the order,
 * after the commit, so no row lock is ever held across a call to the ledger,
 * the bank or another service; the order row exists before any hold names it.
 */
import { randomUUID } from 'node:crypto';
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { formatAmount } from '@platform/money';
import { claimIdempotently } from '@platform/persistence';
import type { Clock } from '../../domain/clock';
import { capExceededCode } from '../../domain/daily-cap';
import { capAmountKes, OrderRecord, PARTNER_REFERENCE_LENGTH_MAX } from '../../domain/order';
import type { OrderIntakeRead, OrderIntakeRepository } from '../../persistence/order-intake.repository';
import { orderReferenceKey, type OrdersRepository } from '../../persistence/orders.repository';
import type { QuoteRecord } from '../../persistence/quotes.repository';
import type { PartnerAccountIds } from '../order-support';
import { expectedUsdtOf } from './buy-request';
import {
  CreateOrderCommand,
  FundingFields,
  FundingStrategy,
  OrderIntake,
  OrderResult,
  selectFunding,
} from './funding-strategy';
import { assertPartnerActive, assertPlatformOpen, assertTreasuryAvailable } from './order-guards';
import type { LedgerApi } from '../../adapters/peers/peers';

export interface CreateOrderDependencies {
  /** The quote, the reference's order, the switches and the profile, read by one statement. */
  intake: Pick<OrderIntakeRepository, 'read'>;
  /** `find`: the original order of a replay, read whole. */
  orders: Pick<OrdersRepository, 'find' | 'place'>;
  ledger: Pick<LedgerApi, 'getPartnerAccounts'>;
  accountIds: Pick<PartnerAccountIds, 'remember'>;
  clock: Clock;
  /** One per kind: debit-first and pay-in buys, deposit and balance sells. */
  strategies: readonly FundingStrategy[];
}

/** The replay of a create answers as the original did: the order, or its refusal. */
export function replayOf(order: OrderRecord): OrderResult {
  return { order, refusalCode: order.refusalCode };
}

/**
 * Under the contract an order's partnerReference is its whole identity: a
 * repeat answers the original order whatever quote or fields it brings (and
 * its own quote is not consumed). So the request an order's key names is the
 * key itself, (partner, partnerReference): a repeat always matches its
 * original, and the helper's refusal of a different request under a taken key
 * never applies to orders.
 */
interface KeyedOrder {
  requestHash: string;
  order: OrderRecord;
}

const keyed = (order: OrderRecord): KeyedOrder => ({
  requestHash: orderReferenceKey(order.partnerId, order.partnerReference),
  order,
});

/** What the judging of a first request hands the placement and the funding. */
interface Placing {
  strategy: FundingStrategy;
  intake: OrderIntake;
  fields: FundingFields;
}

export class CreateOrderUseCase {
  constructor(private readonly deps: CreateOrderDependencies) {}

  /**
   * Idempotent on (partner, partnerReference) through claimIdempotently, with
   * no round trip of its own: `find` answers the order the intake read found
   * under the key (or the twin a lost placement found), the refusals after
   * the repeat check are its precheck, and the placement statement is its
   * claim, answering null when a twin holds the key (the statement serialises
   * the key and returns the twin, which the next `find` answers).
   */
  async execute(command: CreateOrderCommand): Promise<OrderResult> {
    assertRequestShape(command);
    const read = await this.readIntake(command);
    const { quote } = read;
    if (!quote) throw new AppError('QUOTE_NOT_FOUND');
    let seen: OrderRecord | null = read.original;
    let placing: Placing | null = null;
    const { resource, replayed } = await claimIdempotently<KeyedOrder>({
      requestHash: orderReferenceKey(command.partnerId, command.partnerReference),
      find: async () => {
        const order = seen;
        seen = null;
        return order && keyed(order);
      },
      // Kept across claim attempts: the ledger's read and the kind's preparation are made once.
      precheck: async () => {
        placing ??= await this.judge(command, { ...read, quote });
      },
      claim: async () => {
        const placement = await this.persist(placing!);
        if ('replay' in placement) {
          seen = placement.replay;
          return null;
        }
        return keyed(placement.order);
      },
    });
    // A replay answers as the original did; only the call that created the order funds it.
    if (replayed) return replayOf(resource.order);
    return placing!.strategy.fund(resource.order, placing!.intake);
  }

  /**
   * Every refusal after the repeat check, in the contract's order, then the
   * kind's preparation: what the placement needs, or the refusal.
   */
  private async judge(
    command: CreateOrderCommand,
    read: Pick<OrderIntakeRead, 'switches' | 'profile'> & { quote: QuoteRecord },
  ): Promise<Placing> {
    const { quote, switches, profile } = read;
    const treasury = assertPlatformOpen(switches);
    if (!profile) throw new AppError('PARTNER_NOT_FOUND');
    const strategy = selectFunding(command.side, profile, this.deps.strategies);
    strategy.assertRequest(command);
    assertPartnerActive(profile);
    const accounts = await this.deps.ledger.getPartnerAccounts({
      partnerId: command.partnerId,
      withKesBalance: strategy.readsKesBalance === true,
    });
    this.deps.accountIds.remember(command.partnerId, accounts);
    strategy.assertAccounts(accounts);
    assertTreasuryAvailable(treasury);
    if (quote.side !== command.side) throw new AppError('QUOTE_SIDE_MISMATCH');
    await strategy.assertBeforeCap({ command, quote, profile, accounts });
    if (capAmountKes(quote).gt(profile.perOrderCapKes)) throw new AppError('ORDER_EXCEEDS_PER_ORDER_CAP');
    const intake: OrderIntake = {
      command,
      quote,
      profile,
      accounts,
      orderId: randomUUID(),
      now: this.deps.clock.now(),
    };
    return { strategy, intake, fields: await strategy.prepare(intake) };
  }

  /**
   * The quote, an order already made under the partnerReference, the switches
   * and the partner's profile: reads only, one statement (OrderIntakeRepository).
   * Their refusals are judged afterwards, in the contract's order. A replay
   * (rare) reads its original order whole by id.
   */
  private async readIntake(command: CreateOrderCommand) {
    const quoteKnown = isUuid(command.quoteId);
    const read = await this.deps.intake.read(
      command.partnerId,
      quoteKnown ? command.quoteId : null,
      command.partnerReference,
    );
    const original =
      quoteKnown && read.quote && read.originalOrderId !== null
        ? await this.deps.orders.find(read.originalOrderId)
        : null;
    return { quote: read.quote, original, switches: read.switches, profile: read.profile };
  }

  /**
   * Quote, order and cap in one statement, serialised per partnerReference
   * (OrdersRepository.place): no lock waits on a round trip to this process.
   * The order it made, or the twin it found holding the key.
   */
  private async persist({
    intake,
    strategy,
    fields,
  }: Placing): Promise<{ order: OrderRecord } | { replay: OrderRecord }> {
    const { command, quote, orderId } = intake;
    const placement = await this.deps.orders.place(
      {
        ...quoteTerms(quote),
        ...fields,
        orderId,
        partnerId: command.partnerId,
        partnerReference: command.partnerReference,
        side: strategy.side,
        fundingMode: strategy.fundingMode,
      },
      formatAmount(capAmountKes(quote), 'KES'),
      this.deps.clock.now(),
    );
    switch (placement.outcome) {
      case 'placed':
        return { order: placement.order };
      case 'replay':
        return { replay: placement.order };
      case 'exceeded':
        throw new AppError(capExceededCode('order'));
      case 'quote_unavailable':
        throw new AppError('QUOTE_EXPIRED_OR_CONSUMED');
      case 'partner_not_found':
        throw new AppError('PARTNER_NOT_FOUND');
    }
  }
}

/** Shape checks needing nothing read: ids, the reference's length, a buy's expected amount. */
function assertRequestShape(command: CreateOrderCommand): void {
  const bad: string[] = [];
  if (!isUuid(command.partnerId)) bad.push('partnerId');
  if (command.partnerReference.length === 0 || command.partnerReference.length > PARTNER_REFERENCE_LENGTH_MAX)
    bad.push('partnerReference');
  if (bad.length > 0) throw validationFailed(bad);
  if (command.side === 'buy') expectedUsdtOf(command.expectedUsdtAmount);
}

/** What the order takes from its quote, as stored. */
function quoteTerms(quote: QuoteRecord) {
  return {
    quoteId: quote.quoteId,
    kesAmount: quote.kesAmount,
    usdtAmount: quote.usdtAmount,
    rate: quote.rate,
    feeKes: quote.feeKes,
    feeBps: quote.feeBps,
    feeFlatKes: quote.feeFlatKes,
    feeCapKes: quote.feeCapKes,
    kesTotalAmount: quote.kesTotalAmount,
    expiresAt: quote.expiresAt,
  };
}
