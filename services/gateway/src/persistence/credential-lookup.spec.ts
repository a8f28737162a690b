// Proves the credential cache: a credential is read once per 2 s at most,
// reread after that (so a revocation bites within 2 s), forgotten at once on
// any replica's revocation (forget), wholly after missed revocations (forgetAll), an unknown key answered from memory for 1 s (and
// on forget()), both bounded in size, and that a database failure fails
// closed (503).
import { SealingKeyRing } from '@platform/crypto';
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import {
  CachedCredentialLookup,
  CREDENTIAL_CACHE_ENTRIES_MAX,
  CREDENTIAL_CACHE_TTL_MS,
  UNKNOWN_KEY_CACHE_ENTRIES_MAX,
  UNKNOWN_KEY_CACHE_TTL_MS,
} from './credential-lookup';
import type { StoredCredential } from './credentials.repository';

const keys = SealingKeyRing.parse('ab'.repeat(32));
const logger = createLogger('gateway-test');
logger.silent = true;

function stored(apiKey: string, status: 'active' | 'revoked' = 'active'): StoredCredential {
  return {
    apiKey,
    partnerId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
    secretSealed: keys.seal('sk_secret'),
    scopes: ['read'],
    status,
    rateLimitPerMinute: 120,
  };
}

function setup() {
  let nowMs = 1_000_000;
  const rows = new Map<string, StoredCredential>();
  const repository = {
    reads: 0,
    fail: false,
    async findForAuthentication(apiKey: string) {
      this.reads += 1;
      if (this.fail) throw new Error('connection refused');
      return rows.get(apiKey) ?? null;
    },
  };
  const lookup = new CachedCredentialLookup(repository, keys, logger, () => nowMs);
  return {
    rows,
    repository,
    lookup,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

describe('CachedCredentialLookup', () => {
  it('opens the sealed secret and reuses the answer within the TTL', async () => {
    const { rows, repository, lookup, advance } = setup();
    rows.set('k1', stored('k1'));
    expect((await lookup.find('k1'))?.signingKey.export().toString('utf8')).toBe('sk_secret');
    advance(CREDENTIAL_CACHE_TTL_MS - 1);
    await lookup.find('k1');
    expect(repository.reads).toBe(1);
  });

  it('answers a key known in memory at once, not through a promise, and an unknown one likewise', async () => {
    const { rows, lookup } = setup();
    rows.set('k1', stored('k1'));
    expect(lookup.find('k1')).toBeInstanceOf(Promise);
    await lookup.find('k1');
    const known = lookup.find('k1');
    expect(known).not.toBeInstanceOf(Promise);
    expect((known as Awaited<typeof known>)?.apiKey).toBe('k1');
    await lookup.find('k2');
    expect(lookup.find('k2')).toBeNull();
  });

  it('rereads after the TTL, so a revocation elsewhere bites within it', async () => {
    const { rows, lookup, advance } = setup();
    rows.set('k1', stored('k1'));
    await lookup.find('k1');
    rows.set('k1', stored('k1', 'revoked'));
    advance(CREDENTIAL_CACHE_TTL_MS);
    expect((await lookup.find('k1'))?.status).toBe('revoked');
  });

  it('forgets at once on forget()', async () => {
    const { rows, repository, lookup } = setup();
    rows.set('k1', stored('k1'));
    await lookup.find('k1');
    lookup.forget('k1');
    await lookup.find('k1');
    expect(repository.reads).toBe(2);
  });

  it('forgets every key on forgetAll() (revocations may have been missed)', async () => {
    const { rows, repository, lookup } = setup();
    rows.set('k1', stored('k1'));
    rows.set('k3', stored('k3'));
    await lookup.find('k1');
    await lookup.find('k3');
    lookup.forgetAll();
    await lookup.find('k1');
    await lookup.find('k3');
    expect(repository.reads).toBe(4);
  });

  it('answers an unknown key from memory for a second, then asks again', async () => {
    const { rows, repository, lookup, advance } = setup();
    expect(await lookup.find('k2')).toBeNull();
    expect(await lookup.find('k2')).toBeNull();
    expect(repository.reads).toBe(1);
    rows.set('k2', stored('k2'));
    advance(UNKNOWN_KEY_CACHE_TTL_MS);
    expect(await lookup.find('k2')).not.toBeNull();
    expect(repository.reads).toBe(2);
  });

  it('forgets an unknown answer at once on forget()', async () => {
    const { rows, lookup } = setup();
    expect(await lookup.find('k2')).toBeNull();
    rows.set('k2', stored('k2'));
    lookup.forget('k2');
    expect(await lookup.find('k2')).not.toBeNull();
  });

  it('bounds the unknown keys it remembers, dropping the oldest', async () => {
    const { repository, lookup } = setup();
    for (let index = 0; index <= UNKNOWN_KEY_CACHE_ENTRIES_MAX; index += 1) await lookup.find(`unknown-${index}`);
    const reads = repository.reads;
    await lookup.find(`unknown-${UNKNOWN_KEY_CACHE_ENTRIES_MAX}`);
    expect(repository.reads).toBe(reads);
    await lookup.find('unknown-0');
    expect(repository.reads).toBe(reads + 1);
  });

  it('fails closed with SERVICE_UNAVAILABLE when the database does not answer', async () => {
    const { repository, lookup } = setup();
    repository.fail = true;
    await expect(lookup.find('k1')).rejects.toEqual(new AppError('SERVICE_UNAVAILABLE'));
  });

  it('refuses a secret sealed with another key (a fault, not a 401)', async () => {
    const { rows, lookup } = setup();
    rows.set('k3', { ...stored('k3'), secretSealed: SealingKeyRing.parse('cd'.repeat(32)).seal('sk_secret') });
    await expect(lookup.find('k3')).rejects.toThrow();
  });

  it('bounds its size', async () => {
    const { rows, repository, lookup } = setup();
    for (let index = 0; index <= CREDENTIAL_CACHE_ENTRIES_MAX; index += 1) {
      rows.set(`k${index}`, stored(`k${index}`));
      await lookup.find(`k${index}`);
    }
    const readsBefore = repository.reads;
    await lookup.find('k0');
    expect(repository.reads).toBe(readsBefore + 1);
  });
});
