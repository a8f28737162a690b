/** A partner's caps and how much of the rolling 24-hour cap is in use. */
import { AppError, validationFailed } from '@platform/errors';
import { Big, formatAmount } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import { queryRows } from '@platform/persistence';
import { DAILY_CAP_WINDOW_MS, remainingKes } from '../../domain/daily-cap';
import { UUID_PATTERN } from '../../domain/partner-profile';
import { sumOpenCapUsages } from '../../persistence/cap-usages.repository';

export interface PartnerLimitsView {
  partnerId: string;
  perOrderCapKes: string;
  dailyCapKes: string;
  dailyUsedKes: string;
  dailyRemainingKes: string;
}

export class GetPartnerLimitsUseCase {
  constructor(private readonly dataSource: DataSource) {}

  async execute(input: { partnerId: string }): Promise<PartnerLimitsView> {
    if (!UUID_PATTERN.test(input.partnerId)) throw validationFailed(['partnerId']);
    const manager = this.dataSource.manager;
    const [caps] = await queryRows<{ perOrderCapKes: string; dailyCapKes: string }>(
      manager,
      'SELECT per_order_cap_kes::text AS "perOrderCapKes", daily_cap_kes::text AS "dailyCapKes" FROM partner_profiles WHERE partner_id = $1',
      [input.partnerId],
    );
    if (!caps) throw new AppError('PARTNER_NOT_FOUND');
    const used = new Big(await sumOpenCapUsages(manager, input.partnerId, DAILY_CAP_WINDOW_MS));
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
