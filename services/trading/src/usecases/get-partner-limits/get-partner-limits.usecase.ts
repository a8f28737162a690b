/**
 * A partner's caps and how much of the rolling 24-hour cap is in use: what a
 * reservation made now would count (domain/cap-window.ts), read without locks.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, formatAmount } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import type { Clock } from '../../domain/clock';
import { capWindowStart } from '../../domain/cap-window';
import { remainingKes } from '../../domain/daily-cap';
import { CapUsagesRepository } from '../../persistence/cap-usages.repository';
import { PartnerProfilesRepository } from '../../persistence/partner-profiles.repository';

export interface PartnerLimitsView {
  partnerId: string;
  perOrderCapKes: string;
  dailyCapKes: string;
  dailyUsedKes: string;
  dailyRemainingKes: string;
}

export class GetPartnerLimitsUseCase {
  private readonly profiles: PartnerProfilesRepository;
  private readonly capUsages = new CapUsagesRepository();

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {
    this.profiles = new PartnerProfilesRepository(dataSource);
  }

  async execute(input: { partnerId: string }): Promise<PartnerLimitsView> {
    if (!isUuid(input.partnerId)) throw validationFailed(['partnerId']);
    const caps = await this.profiles.findCaps(input.partnerId);
    if (!caps) throw new AppError('PARTNER_NOT_FOUND');
    const used = new Big(
      await this.capUsages.readOpenKes(this.dataSource.manager, input.partnerId, capWindowStart(this.clock.now())),
    );
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
