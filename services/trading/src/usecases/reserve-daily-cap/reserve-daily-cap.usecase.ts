/**
 * Counts a movement against the partner's rolling 24-hour cap (contract
 * decisions section 4). Atomic: the partner's profile row is locked, the open
 * usages of the window summed, and the new usage inserted in one transaction,
 * so concurrent reservations that together exceed the cap cannot all pass.
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
import { assertWithinDailyCap, DAILY_CAP_WINDOW_MS, parseReserveDailyCap, ReserveDailyCapInput, ReserveDailyCapRequest, usdtToCapKes } from '../../domain/daily-cap';
import { isRateLive } from '../../domain/rate-freshness';
import { CapUsageRow, findCapUsage, insertCapUsage, lockPartnerCaps, sumOpenCapUsages } from '../../persistence/cap-usages.repository';
import type { PlatformSwitchesRepository } from '../../persistence/platform-switches.repository';
import { assertPartnerActive, readProfile } from '../order-guards';

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
    const existing = await findCapUsage(this.deps.dataSource.manager, request.usageId);
    if (existing) return capUsageView(sameUsageOrRefuse(existing, request));
    await this.assertMovementAllowed(request.partnerId);
    const amountKes = await this.valueInKes(request);
    const row = await withTransaction(this.deps.dataSource, (manager) => reserveInTransaction(manager, request, amountKes));
    return capUsageView(row);
  }

  private async assertMovementAllowed(partnerId: string): Promise<void> {
    if ((await this.deps.switches.read()).kill_switch === 'on') throw new AppError('KILL_SWITCH_ENGAGED');
    assertPartnerActive(await readProfile(this.deps.dataSource, partnerId));
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
 * The reservation itself, for callers already inside a transaction (order
 * creation reserves in the same transaction that consumes the quote).
 */
export async function reserveInTransaction(manager: EntityManager, request: ReserveDailyCapRequest, amountKes: Big): Promise<CapUsageRow> {
  const caps = await lockPartnerCaps(manager, request.partnerId);
  if (!caps) throw new AppError('PARTNER_NOT_FOUND');
  // Re-read under the lock: a concurrent twin with the same usageId may have just committed.
  const twin = await findCapUsage(manager, request.usageId);
  if (twin) return sameUsageOrRefuse(twin, request);
  const usedKes = new Big(await sumOpenCapUsages(manager, request.partnerId, DAILY_CAP_WINDOW_MS));
  assertWithinDailyCap(request.source, usedKes, amountKes, new Big(caps.dailyCapKes));
  const row = await insertCapUsage(manager, {
    usageId: request.usageId,
    partnerId: request.partnerId,
    source: request.source,
    amountKes: formatAmount(amountKes, 'KES'),
    givenCurrency: request.given.currency,
    givenAmount: formatDecimal(request.given.amount, 6),
  });
  if (!row) throw new Error('cap usage vanished under the partner lock');
  return row;
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
