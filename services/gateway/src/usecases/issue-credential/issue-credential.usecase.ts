import type { SealingKeyRing } from '@platform/crypto';
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { DataSource, isUniqueViolation, recordAudit, withTransaction } from '@platform/persistence';
import { generateApiKey, generateSigningSecret, KeyMode } from '../../domain/credential-tokens';
import { parseScopes, Scope } from '../../domain/scopes';
import type { CredentialsRepository } from '../../persistence/credentials.repository';
import type { PartnersRepository } from '../../persistence/partners.repository';

export interface IssuedCredential {
  apiKey: string;
  /** Shown once, here; stored only sealed. */
  signingSecret: string;
  scopes: Scope[];
  partnerId: string;
}

// A 143-bit random key colliding is not expected; the bound only keeps the loop finite.
const ISSUE_ATTEMPTS_MAX = 3;

/**
 * Operator action: a new credential for a partner (a partner may hold several,
 * for rotation), audited with its API key and scopes (never the secret).
 */
export class IssueCredentialUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly partners: PartnersRepository,
    private readonly credentials: CredentialsRepository,
    private readonly settings: { keyMode: KeyMode; sealingKeys: SealingKeyRing },
    private readonly logger: Logger,
  ) {}

  async execute(command: { partnerId: string; scopes: string[] }): Promise<IssuedCredential> {
    const bad: string[] = [];
    if (!isUuid(command.partnerId)) bad.push('partnerId');
    let scopes: Scope[] = [];
    try {
      scopes = parseScopes(command.scopes);
    } catch {
      bad.push('scopes');
    }
    if (bad.length > 0) throw validationFailed(bad);
    if (!(await this.partners.find(command.partnerId))) throw new AppError('PARTNER_NOT_FOUND');
    return this.insertNew(command.partnerId, scopes);
  }

  private async insertNew(partnerId: string, scopes: Scope[]): Promise<IssuedCredential> {
    const signingSecret = generateSigningSecret();
    const secretSealed = this.settings.sealingKeys.seal(signingSecret);
    for (let attempt = 1; ; attempt += 1) {
      const apiKey = generateApiKey(this.settings.keyMode);
      try {
        await withTransaction(this.dataSource, async (manager) => {
          await this.credentials.insert({ apiKey, partnerId, secretSealed, scopes }, manager);
          await recordAudit(manager, {
            action: 'credential.issued',
            partnerId,
            details: { apiKey, scopes: scopes.join(',') },
          });
        });
        this.logger.info('credential issued', { partnerId, apiKey, scopes });
        return { apiKey, signingSecret, scopes, partnerId };
      } catch (error) {
        if (!isUniqueViolation(error, 'credentials_pkey') || attempt >= ISSUE_ATTEMPTS_MAX) throw error;
      }
    }
  }
}
