import type { DataSource, EntityManager } from '@platform/persistence';
import type { PartnerSettings } from '../domain/partner-settings';

export class PartnerSettingsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async upsert(settings: PartnerSettings, manager: EntityManager = this.dataSource.manager): Promise<PartnerSettings> {
    const [row] = await manager.query(
      `INSERT INTO partner_settings (partner_id, admin_domain) VALUES ($1, $2)
       ON CONFLICT (partner_id) DO UPDATE SET admin_domain = EXCLUDED.admin_domain, updated_at = now()
       RETURNING partner_id, admin_domain`,
      [settings.partnerId, settings.adminDomain],
    );
    return { partnerId: row.partner_id, adminDomain: row.admin_domain };
  }

  async find(partnerId: string): Promise<PartnerSettings | null> {
    const [row] = await this.dataSource.query('SELECT partner_id, admin_domain FROM partner_settings WHERE partner_id = $1', [partnerId]);
    return row ? { partnerId: row.partner_id, adminDomain: row.admin_domain } : null;
  }
}
