import { DataSource, EntityManager, queryRows } from '@platform/persistence';
import { isScope, Scope } from '../domain/scopes';

export type CredentialStatus = 'active' | 'revoked';

export interface NewCredential {
  apiKey: string;
  partnerId: string;
  secretSealed: string;
  scopes: Scope[];
}

/** What authenticating a request needs, read in one indexed query. */
export interface StoredCredential {
  apiKey: string;
  partnerId: string;
  secretSealed: string;
  scopes: Scope[];
  status: CredentialStatus;
  rateLimitPerMinute: number;
}

interface StoredCredentialRow {
  api_key: string;
  partner_id: string;
  secret_sealed: string;
  scopes: string[];
  status: CredentialStatus;
  rate_limit_per_minute: number;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found';

export class CredentialsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(credential: NewCredential, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(
      `INSERT INTO credentials (api_key, partner_id, secret_sealed, scopes, status) VALUES ($1, $2, $3, $4, 'active')`,
      [credential.apiKey, credential.partnerId, credential.secretSealed, credential.scopes],
    );
  }

  /** The credential and its partner's rate limit: one primary-key lookup joined to one primary-key lookup. */
  async findForAuthentication(apiKey: string): Promise<StoredCredential | null> {
    const [row] = await queryRows<StoredCredentialRow>(
      this.dataSource,
      `SELECT c.api_key, c.partner_id, c.secret_sealed, c.scopes, c.status, p.rate_limit_per_minute
       FROM credentials c JOIN partners p ON p.partner_id = c.partner_id
       WHERE c.api_key = $1`,
      [apiKey],
    );
    if (!row) return null;
    return {
      apiKey: row.api_key,
      partnerId: row.partner_id,
      secretSealed: row.secret_sealed,
      scopes: row.scopes.filter(isScope),
      status: row.status,
      rateLimitPerMinute: row.rate_limit_per_minute,
    };
  }

  /** Revokes at once and for good; revoking twice is not an error. */
  async revoke(
    apiKey: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ outcome: RevokeOutcome; partnerId?: string }> {
    const [revoked] = await queryRows<{ partner_id: string }>(
      manager,
      `UPDATE credentials SET status = 'revoked', revoked_at = now() WHERE api_key = $1 AND status = 'active' RETURNING partner_id`,
      [apiKey],
    );
    if (revoked) return { outcome: 'revoked', partnerId: revoked.partner_id };
    const [existing] = await queryRows(manager, 'SELECT 1 FROM credentials WHERE api_key = $1', [apiKey]);
    return { outcome: existing ? 'already_revoked' : 'not_found' };
  }
}
