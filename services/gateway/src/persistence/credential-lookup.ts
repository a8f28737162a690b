import type { SealingKeyRing } from '@platform/crypto';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { BoundedCache } from '@platform/persistence';
import { signingKeyOf } from '../domain/request-signature';
import type { AuthenticatedCredential, CredentialLookup } from '../http/dependencies';
import type { CredentialsRepository } from './credentials.repository';

/**
 * How long an opened credential is reused without reading the database again.
 * A revocation reaches every replica at once through Redis
 * (adapters/credential-revocations.ts); this bounds it when that message is lost,
 * and bounds how long a changed rate limit takes to bite: at most 2 s.
 */
export const CREDENTIAL_CACHE_TTL_MS = 2_000;
/** Bounds memory: the least recently used entries go first. */
export const CREDENTIAL_CACHE_ENTRIES_MAX = 10_000;
/**
 * How long a key the database does not know is answered "unknown" from
 * memory. Keys are random and shown only once issued, so no one looks one up
 * before it exists; a flood of made-up keys costs one query per key per second
 * instead of one per request.
 */
export const UNKNOWN_KEY_CACHE_TTL_MS = 1_000;
/** Bounds the memory a flood of distinct made-up keys can take. */
export const UNKNOWN_KEY_CACHE_ENTRIES_MAX = 10_000;

/**
 * Credentials for authentication: one indexed query, the sealed secret opened
 * with the CREDENTIAL_ENCRYPTION_KEY ring, kept in memory for at most 2 s; an
 * unknown key is remembered as unknown for 1 s. Both are bounded caches (the
 * least recently used go first). A database that cannot answer fails closed (503).
 */
export class CachedCredentialLookup implements CredentialLookup {
  private readonly known = new BoundedCache<string, AuthenticatedCredential>({
    entriesMax: CREDENTIAL_CACHE_ENTRIES_MAX,
    ttlMs: CREDENTIAL_CACHE_TTL_MS,
    nowMs: () => this.nowMs(),
  });
  private readonly unknown = new BoundedCache<string, true>({
    entriesMax: UNKNOWN_KEY_CACHE_ENTRIES_MAX,
    ttlMs: UNKNOWN_KEY_CACHE_TTL_MS,
    nowMs: () => this.nowMs(),
  });

  constructor(
    private readonly repository: Pick<CredentialsRepository, 'findForAuthentication'>,
    private readonly sealingKeys: SealingKeyRing,
    private readonly logger: Logger,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** What memory knows is answered at once (most requests): no promise and no later turn for it. */
  find(apiKey: string): AuthenticatedCredential | null | Promise<AuthenticatedCredential | null> {
    const cached = this.known.get(apiKey);
    if (cached) return cached;
    if (this.unknown.get(apiKey)) return null;
    return this.loadAndKeep(apiKey);
  }

  private async loadAndKeep(apiKey: string): Promise<AuthenticatedCredential | null> {
    const credential = await this.load(apiKey);
    this.forget(apiKey);
    if (credential) this.known.set(apiKey, credential);
    else this.unknown.set(apiKey, true);
    return credential;
  }

  /** Forgets what is known of a key at once (called on revocation, through any replica). */
  forget(apiKey: string): void {
    this.known.delete(apiKey);
    this.unknown.delete(apiKey);
  }

  /** Forgets every key (revocations may have been missed while the replica could not hear them). */
  forgetAll(): void {
    this.known.clear();
    this.unknown.clear();
  }

  private async load(apiKey: string): Promise<AuthenticatedCredential | null> {
    let stored;
    try {
      stored = await this.repository.findForAuthentication(apiKey);
    } catch (error) {
      this.logger.error('credential store unavailable; refusing the request', { error: (error as Error).message });
      throw new AppError('SERVICE_UNAVAILABLE');
    }
    if (!stored) return null;
    // A secret that does not open means a key missing from CREDENTIAL_ENCRYPTION_KEY or a tampered row: a fault, not a 401.
    const signingKey = signingKeyOf(this.sealingKeys.open(stored.secretSealed));
    return {
      apiKey: stored.apiKey,
      partnerId: stored.partnerId,
      signingKey,
      scopes: stored.scopes,
      status: stored.status,
      rateLimitPerMinute: stored.rateLimitPerMinute,
    };
  }
}
