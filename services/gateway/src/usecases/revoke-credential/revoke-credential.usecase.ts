import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { API_KEY_PATTERN } from '../../domain/credential-tokens';
import type { CredentialsRepository } from '../../persistence/credentials.repository';

/**
 * Operator action: revokes a credential, immediately and for good. This
 * replica forgets its cached copy at once; other replicas within their cache
 * lifetime (CREDENTIAL_CACHE_TTL_MS, 2 s). Revoking twice answers the same;
 * the revocation is audited once.
 */
export class RevokeCredentialUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly credentials: CredentialsRepository,
    private readonly onRevoked: (apiKey: string) => void,
    private readonly logger: Logger,
  ) {}

  async execute(command: { apiKey: string }): Promise<{ apiKey: string; status: 'revoked' }> {
    if (!API_KEY_PATTERN.test(command.apiKey)) throw validationFailed(['apiKey']);
    const outcome = await withTransaction(this.dataSource, async (manager) => {
      const revocation = await this.credentials.revoke(command.apiKey, manager);
      if (revocation.partnerId) {
        await recordAudit(manager, { action: 'credential.revoked', partnerId: revocation.partnerId, details: { apiKey: command.apiKey } });
      }
      return revocation.outcome;
    });
    if (outcome === 'not_found') throw new AppError('NOT_FOUND');
    this.onRevoked(command.apiKey);
    if (outcome === 'revoked') this.logger.info('credential revoked', { apiKey: command.apiKey });
    return { apiKey: command.apiKey, status: 'revoked' };
  }
}
