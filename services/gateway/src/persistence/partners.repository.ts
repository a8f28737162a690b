import { DataSource, EntityManager, queryRows } from '@platform/persistence';
import type { NewPartner, Partner } from '../domain/partner';

interface PartnerRow {
  partner_id: string;
  name: string;
  rate_limit_per_minute: number;
  created_at: Date;
}

const COLUMNS = 'partner_id, name, rate_limit_per_minute, created_at';

function toPartner(row: PartnerRow): Partner {
  return {
    partnerId: row.partner_id,
    name: row.name,
    rateLimitPerMinute: row.rate_limit_per_minute,
    createdAt: row.created_at.toISOString(),
  };
}

export class PartnersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts the partner unless its id exists; null when it already did (also under a concurrent create). */
  async insertIfAbsent(partner: NewPartner, manager: EntityManager = this.dataSource.manager): Promise<Partner | null> {
    const [row] = await queryRows<PartnerRow>(
      manager,
      `INSERT INTO partners (partner_id, name, rate_limit_per_minute) VALUES ($1, $2, $3)
       ON CONFLICT (partner_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [partner.partnerId, partner.name, partner.rateLimitPerMinute],
    );
    return row ? toPartner(row) : null;
  }

  async find(partnerId: string): Promise<Partner | null> {
    const [row] = await queryRows<PartnerRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM partners WHERE partner_id = $1`,
      [partnerId],
    );
    return row ? toPartner(row) : null;
  }
}
