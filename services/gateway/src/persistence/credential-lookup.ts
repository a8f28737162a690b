import type { SealingKeyRing } from '@platform/crypto';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { AuthenticatedCredential, CredentialLookup } from '../http/dependencies';
import type { CredentialsRepository } from './credentials.repository';

/**
 * How long an opened credential is reused without reading the database again.
 * A revocation reaches every replica at once through Redis
 * (adapters/credential-revocations.ts); this bounds it when that message is lost,
 * and bounds how long a changed rate limit takes to bite: at most 2 s.
 */
export const CREDENTIAL_CACHE_TTL_MS = 2_000;
/** Bounds memory: the oldest entries go first. */
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

interface Entry {
  credential: AuthenticatedCredential;
  expiresAtMs: number;
}

/**
 * Credentials for authentication: one indexed query, the sealed secret opened
 * with the CREDENTIAL_ENCRYPTION_KEY ring, kept in memory for at most 2 s; an
 * unknown key is remembered as unknown for 1 s. A database that cannot answer
 * fails closed (503).
 */
export class CachedCredentialLookup implements CredentialLookup {
  // Insertion order is expiry order (one TTL for all), so the oldest entries are first.
  private readonly entries = new Map<string, Entry>();
  // Unknown key → when that answer expires; insertion order is expiry order here too.
  private readonly unknownUntilMs = new Map<string, number>();

  constructor(
    private readonly repository: Pick<CredentialsRepository, 'findForAuthentication'>,
    private readonly sealingKeys: SealingKeyRing,
    private readonly logger: Logger,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async find(apiKey: string): Promise<AuthenticatedCredential | null> {
    const now = this.nowMs();
    const cached = this.entries.get(apiKey);
    if (cached && cached.expiresAtMs > now) return cached.credential;
    if ((this.unknownUntilMs.get(apiKey) ?? 0) > now) return null;
    const credential = await this.load(apiKey);
    this.evictExpired(now);
    this.entries.delete(apiKey);
    this.unknownUntilMs.delete(apiKey);
    if (credential) this.remember(apiKey, { credential, expiresAtMs: now + CREDENTIAL_CACHE_TTL_MS });
    else this.rememberUnknown(apiKey, now + UNKNOWN_KEY_CACHE_TTL_MS);
    return credential;
  }

  /** Forgets what is known of a key at once (called on revocation, through any replica). */
  forget(apiKey: string): void {
    this.entries.delete(apiKey);
    this.unknownUntilMs.delete(apiKey);
  }

  /** Forgets every key (revocations may have been missed while the replica could not hear them). */
  forgetAll(): void {
    this.entries.clear();
    this.unknownUntilMs.clear();
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
    const signingSecret = this.sealingKeys.open(stored.secretSealed);
    return {
      apiKey: stored.apiKey,
      partnerId: stored.partnerId,
      signingSecret,
      scopes: stored.scopes,
      status: stored.status,
      rateLimitPerMinute: stored.rateLimitPerMinute,
    };
  }

  private remember(apiKey: string, entry: Entry): void {
    if (this.entries.size >= CREDENTIAL_CACHE_ENTRIES_MAX) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(apiKey, entry);
  }

  private rememberUnknown(apiKey: string, untilMs: number): void {
    if (this.unknownUntilMs.size >= UNKNOWN_KEY_CACHE_ENTRIES_MAX) {
      const oldest = this.unknownUntilMs.keys().next().value;
      if (oldest !== undefined) this.unknownUntilMs.delete(oldest);
    }
    this.unknownUntilMs.set(apiKey, untilMs);
  }

  private evictExpired(now: number): void {
    for (const [apiKey, entry] of this.entries) {
      if (entry.expiresAtMs > now) break;
      this.entries.delete(apiKey);
    }
    for (const [apiKey, untilMs] of this.unknownUntilMs) {
      if (untilMs > now) break;
      this.unknownUntilMs.delete(apiKey);
    }
  }
}
