/**
 * Counts a movement against the partner's rolling 24-hour cap, shared by
 * orders, transfers and USDT sends. Atomic: the partner's cap window row is
 * locked, the window moved to the reservation's minute, the cap checked and the
 * new usage inserted in one statement, so concurrent reservations that together
 * exceed the cap cannot all pass. The work is the same whatever the
 * partner's volume: a handful of rows by primary key, plus the buckets that
 * left the window since the last reservation (domain/cap-window.ts).
 * Idempotent on usageId: the same body answers the original usage, a
 * different body DAILY_CAP_USAGE_ID_REUSED.
 *
 * Payouts reserves here before any transfer or USDT send holds money, so this
 * is also where value leaving a partner stops as orders do: the kill switch
 * (KILL_SWITCH_ENGAGED, "operator halted USDT/KES movement") and a suspended
 * partner (PARTNER_SUSPENDED). Orders check both themselves, before their quote
 * is consumed, and reserve inside their own transaction.
 */
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { Big, formatAmount, formatDecimal } from '@platform/money';
import type { DataSource, EntityManager } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { RateFeed } from '../../adapters/rate-feed/rate-feed';
import type { Clock } from '../../domain/clock';
import {
  capExceededCode,
  parseReserveDailyCap,
  ReserveDailyCapInput,
  ReserveDailyCapRequest,
  usdtToCapKes,
} from '../../domain/daily-cap';
import { isRateLive } from '../../domain/rate-freshness';
import { CapUsageRow, CapUsagesRepository } from '../../persistence/cap-usages.repository';
import type { PartnerProfilesRepository } from '../../persistence/partner-profiles.repository';
import type { PlatformSwitchesRepository } from '../../persistence/platform-switches.repository';
import { assertPartnerActive } from '../create-order/order-guards';

/** Stateless (every method takes the transaction): one for the module. */
const capUsages = new CapUsagesRepository();

export interface CapUsageView {
  usageId: string;
  partnerId: string;
  source: string;
  amountKes: string;
  createdAt: string;
  releasedAt: string | null;
}

export function capUsageView(row: CapUsageRow): CapUsageView {
  return {
    usageId: row.usageId,
    partnerId: row.partnerId,
    source: row.source,
    amountKes: formatAmount(new Big(row.amountKes), 'KES'),
    createdAt: new Date(row.createdAt).toISOString(),
    releasedAt: row.releasedAt ? new Date(row.releasedAt).toISOString() : null,
  };
}

export interface ReserveDailyCapDependencies {
  dataSource: DataSource;
  profiles: Pick<PartnerProfilesRepository, 'findTradingProfile'>;
  switches: Pick<PlatformSwitchesRepository, 'read'>;
  rateFeed: RateFeed;
  clock: Clock;
  logger: Logger;
  rateStalenessLimitMs: number;
}

export class ReserveDailyCapUseCase {
  constructor(private readonly deps: ReserveDailyCapDependencies) {}

  async execute(input: ReserveDailyCapInput): Promise<CapUsageView> {
    const request = parseReserveDailyCap(input);
    const existing = await capUsages.find(this.deps.dataSource.manager, request.usageId);
    if (existing) return capUsageView(sameUsageOrRefuse(existing, request));
    await this.assertMovementAllowed(request.partnerId);
    const amountKes = await this.valueInKes(request);
    const row = await withTransaction(this.deps.dataSource, (manager) =>
      reserveInTransaction(manager, request, amountKes, this.deps.clock.now()),
    );
    return capUsageView(row);
  }

  private async assertMovementAllowed(partnerId: string): Promise<void> {
    if ((await this.deps.switches.read()).kill_switch === 'on') throw new AppError('KILL_SWITCH_ENGAGED');
    const profile = await this.deps.profiles.findTradingProfile(partnerId);
    if (!profile) throw new AppError('PARTNER_NOT_FOUND');
    assertPartnerActive(profile);
  }

  private async valueInKes(request: ReserveDailyCapRequest): Promise<Big> {
    if (request.given.currency === 'KES') return request.given.amount;
    const rate = await this.deps.rateFeed.latest(request.partnerId);
    if (rate === null || !isRateLive(rate.observedAt, this.deps.clock.now(), this.deps.rateStalenessLimitMs)) {
      this.deps.logger.warn('no live rate to value a USDT cap usage', { partnerId: request.partnerId });
      throw new AppError('ORDER_DAILY_CAP_RATE_UNAVAILABLE');
    }
    return usdtToCapKes(request.given.amount, rate.bid);
  }
}

/**
 * The reservation itself, for callers already inside a transaction. `now` is
 * the caller's clock; the usage counts at `now`, or at the start of the latest
 * minute the partner's window reached when `now` is earlier. One statement
 * (CapUsagesRepository.reserve): the partner's cap window stays locked from it
 * to the caller's commit, and a twin with the same usageId committed meanwhile
 * is found under that lock. Orders reserve inside their own single statement
 * (OrdersRepository.place), under the same rules.
 */
export async function reserveInTransaction(
  manager: EntityManager,
  request: ReserveDailyCapRequest,
  amountKes: Big,
  now: Date,
): Promise<CapUsageRow> {
  const usage = {
    usageId: request.usageId,
    partnerId: request.partnerId,
    source: request.source,
    amountKes: formatAmount(amountKes, 'KES'),
    givenCurrency: request.given.currency,
    givenAmount: formatDecimal(request.given.amount, 6),
  };
  const reservation = await capUsages.reserve(manager, usage, now, false);
  if (reservation.outcome === 'partner_not_found') throw new AppError('PARTNER_NOT_FOUND');
  if (reservation.outcome === 'exceeded') throw new AppError(capExceededCode(request.source));
  if (reservation.outcome === 'existing') return sameUsageOrRefuse(reservation.usage, request);
  return reservation.usage;
}

function sameUsageOrRefuse(row: CapUsageRow, request: ReserveDailyCapRequest): CapUsageRow {
  const same =
    row.partnerId === request.partnerId &&
    row.source === request.source &&
    row.givenCurrency === request.given.currency &&
    new Big(row.givenAmount).eq(request.given.amount);
  if (!same) throw new AppError('DAILY_CAP_USAGE_ID_REUSED');
  return row;
}
