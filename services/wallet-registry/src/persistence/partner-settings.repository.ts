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

  /**
   * Locks the partner's settings row FOR UPDATE: every change to the partner's
   * administrators takes it first, so changes of one partner happen one at a
   * time (two concurrent removals cannot both see another recipient remain).
   * Null when the partner is not configured (it has no administrators then).
   */
  async lock(manager: EntityManager, partnerId: string): Promise<PartnerSettings | null> {
    const [row] = await manager.query(
      'SELECT partner_id, admin_domain FROM partner_settings WHERE partner_id = $1 FOR UPDATE',
      [partnerId],
    );
    return row ? { partnerId: row.partner_id, adminDomain: row.admin_domain } : null;
  }

  async find(partnerId: string): Promise<PartnerSettings | null> {
    const [row] = await this.dataSource.query(
      'SELECT partner_id, admin_domain FROM partner_settings WHERE partner_id = $1',
      [partnerId],
    );
    return row ? { partnerId: row.partner_id, adminDomain: row.admin_domain } : null;
  }
}
