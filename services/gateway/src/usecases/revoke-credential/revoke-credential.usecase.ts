import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { API_KEY_PATTERN } from '../../domain/credential-tokens';
import type { CredentialsRepository } from '../../persistence/credentials.repository';

/**
 * Operator action: revokes a credential, immediately and for good. Once it is
 * committed, `onRevoked` tells every replica to forget its cached copy (this one
 * at once, the others through Redis within milliseconds, or within their cache
 * lifetime, CREDENTIAL_CACHE_TTL_MS, if that message is lost); the answer waits
 * for it. Revoking twice answers the same; the revocation is audited once.
 */
export class RevokeCredentialUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly credentials: CredentialsRepository,
    private readonly onRevoked: (apiKey: string) => void | Promise<void>,
    private readonly logger: Logger,
  ) {}

  async execute(command: { apiKey: string }): Promise<{ apiKey: string; status: 'revoked' }> {
    if (!API_KEY_PATTERN.test(command.apiKey)) throw validationFailed(['apiKey']);
    const outcome = await withTransaction(this.dataSource, async (manager) => {
      const revocation = await this.credentials.revoke(command.apiKey, manager);
      if (revocation.partnerId) {
        await recordAudit(manager, {
          action: 'credential.revoked',
          partnerId: revocation.partnerId,
          details: { apiKey: command.apiKey },
        });
      }
      return revocation.outcome;
    });
    if (outcome === 'not_found') throw new AppError('NOT_FOUND');
    await this.onRevoked(command.apiKey);
    if (outcome === 'revoked') this.logger.info('credential revoked', { apiKey: command.apiKey });
    return { apiKey: command.apiKey, status: 'revoked' };
  }
}
