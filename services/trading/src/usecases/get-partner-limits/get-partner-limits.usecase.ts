/**
 * A partner's caps and how much of the rolling 24-hour cap is in use: what a
 * reservation made now would count (domain/cap-window.ts), read without locks.
 */
import { AppError, validationFailed } from '@platform/errors';
import { Big, formatAmount } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import { queryRows } from '@platform/persistence';
import type { Clock } from '../../domain/clock';
import { capWindowStart } from '../../domain/cap-window';
import { remainingKes } from '../../domain/daily-cap';
import { UUID_PATTERN } from '../../domain/partner-profile';
import { readOpenCapKes } from '../../persistence/cap-usages.repository';

export interface PartnerLimitsView {
  partnerId: string;
  perOrderCapKes: string;
  dailyCapKes: string;
  dailyUsedKes: string;
  dailyRemainingKes: string;
}

export class GetPartnerLimitsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async execute(input: { partnerId: string }): Promise<PartnerLimitsView> {
    if (!UUID_PATTERN.test(input.partnerId)) throw validationFailed(['partnerId']);
    const manager = this.dataSource.manager;
    const [caps] = await queryRows<{ perOrderCapKes: string; dailyCapKes: string }>(
      manager,
      'SELECT per_order_cap_kes::text AS "perOrderCapKes", daily_cap_kes::text AS "dailyCapKes" FROM partner_profiles WHERE partner_id = $1',
      [input.partnerId],
    );
    if (!caps) throw new AppError('PARTNER_NOT_FOUND');
    const used = new Big(await readOpenCapKes(manager, input.partnerId, capWindowStart(this.clock.now())));
    const dailyCap = new Big(caps.dailyCapKes);
    return {
      partnerId: input.partnerId,
      perOrderCapKes: formatAmount(new Big(caps.perOrderCapKes), 'KES'),
      dailyCapKes: formatAmount(dailyCap, 'KES'),
      dailyUsedKes: formatAmount(used, 'KES'),
      dailyRemainingKes: remainingKes(dailyCap, used),
    };
  }
}
