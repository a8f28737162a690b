import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { NewPartner, parseNewPartner, Partner, sameAsCreated } from '../../domain/partner';
import type { PartnersRepository } from '../../persistence/partners.repository';

export interface CreatePartnerCommand {
  partnerId: string;
  name: string;
  /** 0 means the configured default. */
  rateLimitPerMinute: number;
}

/**
 * Operator action: enters a partner in the gateway's directory. Idempotent on
 * the caller-made partner id: the same id with the same body returns the
 * original; the same id with another body is IDEMPOTENCY_KEY_REUSED (409).
 * The creation is audited with the entry; a repeat records nothing.
 */
export class CreatePartnerUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly partners: PartnersRepository,
    private readonly limits: { rateLimitDefault: number; rateLimitMax: number },
    private readonly logger: Logger,
  ) {}

  async execute(command: CreatePartnerCommand): Promise<Partner> {
    const partner = parseNewPartner(command, this.limits);
    const created = await withTransaction(this.dataSource, async (manager) => {
      const inserted = await this.partners.insertIfAbsent(partner, manager);
      if (inserted) {
        await recordAudit(manager, {
          action: 'partner.created',
          partnerId: inserted.partnerId,
          details: { name: inserted.name, rateLimitPerMinute: inserted.rateLimitPerMinute },
        });
      }
      return inserted;
    });
    if (created) {
      this.logger.info('partner created', {
        partnerId: created.partnerId,
        rateLimitPerMinute: created.rateLimitPerMinute,
      });
      return created;
    }
    return this.originalOf(partner);
  }

  private async originalOf(repeat: NewPartner): Promise<Partner> {
    const existing = await this.partners.find(repeat.partnerId);
    // Partners are never deleted, so the row that blocked the insert is still there.
    if (!existing) throw new Error(`partner ${repeat.partnerId} vanished after a conflicting insert`);
    if (!sameAsCreated(existing, repeat)) throw new AppError('IDEMPOTENCY_KEY_REUSED');
    return existing;
  }
}
