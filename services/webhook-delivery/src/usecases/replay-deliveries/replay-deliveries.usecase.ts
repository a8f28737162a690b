import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import type { DeliveryMetrics } from '../../metrics/delivery-metrics';
import type { DeliveriesRepository } from '../../persistence/deliveries.repository';

/** Deliveries re-opened by one call; a larger range takes several calls. */
export const RANGE_REPLAY_LIMIT_MAX = 1_000;
export const RANGE_REPLAY_LIMIT_DEFAULT = 500;
/** The widest [since, until) one call may cover. */
export const RANGE_REPLAY_SPAN_MS_MAX = 31 * 24 * 60 * 60_000;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export interface ReplayDeliveriesCommand {
  partnerId: string;
  /** ISO 8601 UTC, inclusive. */
  since: string;
  /** ISO 8601 UTC, exclusive. */
  until: string;
  deadOnly: boolean;
  /** 0 means RANGE_REPLAY_LIMIT_DEFAULT. */
  limit: number;
}

export interface ReplayDeliveriesResult {
  replayed: number;
  /** Still matching after this call (rows past the limit, or held by another caller): run again. */
  remaining: number;
}

/**
 * Operator action: re-opens a partner's deliveries created in [since, until),
 * oldest first, each keeping its delivery id and getting a fresh round of 7
 * attempts: the dead ones (--dead-only), or also the delivered ones and those
 * held while the partner had no endpoint. Bounded per call; a call that
 * re-opened any is audited with them.
 */
export class ReplayDeliveriesUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: DeliveriesRepository,
    private readonly metrics: DeliveryMetrics,
    private readonly logger: Logger,
  ) {}

  async execute(command: ReplayDeliveriesCommand): Promise<ReplayDeliveriesResult> {
    const { since, until, limit } = this.validate(command);
    const result = await withTransaction(this.dataSource, async (manager) => {
      const replay = await this.deliveries.replayRange(
        { partnerId: command.partnerId, since, until, deadOnly: command.deadOnly, limit },
        manager,
      );
      if (replay.replayed > 0) {
        await recordAudit(manager, {
          action: 'webhook_deliveries.replayed',
          partnerId: command.partnerId,
          details: {
            since: since.toISOString(),
            until: until.toISOString(),
            deadOnly: command.deadOnly,
            replayed: replay.replayed,
          },
        });
      }
      return replay;
    });
    this.metrics.deliveriesReplayed(result.replayed);
    this.logger.info('webhook range replay', {
      partnerId: command.partnerId,
      since: command.since,
      until: command.until,
      deadOnly: command.deadOnly,
      ...result,
    });
    return result;
  }

  private validate(command: ReplayDeliveriesCommand): { since: Date; until: Date; limit: number } {
    const bad: string[] = [];
    if (!isUuid(command.partnerId)) bad.push('partnerId');
    const since = parseIso(command.since);
    const until = parseIso(command.until);
    if (since === null) bad.push('since');
    if (until === null) bad.push('until');
    if (
      since !== null &&
      until !== null &&
      (until <= since || until.getTime() - since.getTime() > RANGE_REPLAY_SPAN_MS_MAX)
    )
      bad.push('until');
    const limit = command.limit === 0 ? RANGE_REPLAY_LIMIT_DEFAULT : command.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > RANGE_REPLAY_LIMIT_MAX) bad.push('limit');
    if (bad.length > 0 || since === null || until === null) throw validationFailed(bad);
    return { since, until, limit };
  }
}

function parseIso(value: string): Date | null {
  if (!ISO_UTC.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
