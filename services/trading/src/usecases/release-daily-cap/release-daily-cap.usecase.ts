/**
 * Gives back a reservation whose value never moved (a refused or expired
 * order, a failed transfer). Idempotent: releasing twice, or an unknown
 * usage, changes nothing.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import { CapUsagesRepository } from '../../persistence/cap-usages.repository';
import { capUsageView, CapUsageView } from '../reserve-daily-cap/reserve-daily-cap.usecase';

export class ReleaseDailyCapUseCase {
  private readonly capUsages = new CapUsagesRepository();

  constructor(private readonly dataSource: DataSource) {}

  async execute(input: { usageId: string }): Promise<{ found: boolean; usage: CapUsageView | null }> {
    if (!isUuid(input.usageId)) throw validationFailed(['usageId']);
    const row = await this.capUsages.release(this.dataSource.manager, input.usageId);
    return { found: row !== null, usage: row ? capUsageView(row) : null };
  }
}
