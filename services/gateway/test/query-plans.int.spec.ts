// Proves the gateway's reads and writes per request cost the same however many partners and
// credentials it holds: a scratch database with the gateway's migrations, partners with
// their credentials (the hot partner with a history of rotated, revoked ones), and each
// operation planned by EXPLAIN (ANALYZE); then twenty times the partners and a hundred
// times the hot partner's rotations, and the same operations again (libs/testing
// describeFlatQueries states the checks).
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from '@platform/persistence';
import { describeFlatQueries, ExplainingQueryable, PlannedOperation } from '@platform/testing';
import { CredentialsRepository } from '../src/persistence/credentials.repository';
import { gatewayDataSource } from '../src/persistence/data-source';
import { PartnersRepository } from '../src/persistence/partners.repository';

const GROWING_TABLES = ['partners', 'credentials'] as const;
/** Partners (one active credential each) and the hot partner's revoked credentials, before and added after. */
const HISTORY = { partnersBefore: 1_000, partnersAdded: 20_000, rotationsBefore: 20, rotationsAdded: 2_000 };
const SEED_TIMEOUT_MS = 180_000;
const SEALED = 'v1.key-1.sealed-secret';

/** `count` partners, each with one active credential. */
async function seedPartners(db: DataSource, count: number): Promise<void> {
  await db.query(
    `WITH made AS (
       INSERT INTO partners (partner_id, name, rate_limit_per_minute)
       SELECT gen_random_uuid(), 'Partner ' || g, 600 FROM generate_series(1, $1::int) AS g
       RETURNING partner_id
     )
     INSERT INTO credentials (api_key, partner_id, secret_sealed, scopes, status)
     SELECT 'pk_sandbox_' || substr(md5(partner_id::text), 1, 24), partner_id, $2, ARRAY['read', 'trade']::text[], 'active'
       FROM made`,
    [count, SEALED],
  );
}

/** `count` revoked credentials of the partner: its rotations over the years. */
async function seedRotations(db: DataSource, partnerId: string, count: number): Promise<void> {
  await db.query(
    `INSERT INTO credentials (api_key, partner_id, secret_sealed, scopes, status, created_at, revoked_at)
     SELECT 'pk_sandbox_' || substr(md5(random()::text || g::text), 1, 24), $1, $2, ARRAY['read']::text[], 'revoked',
            now() - g * interval '1 day', now() - g * interval '1 hour'
       FROM generate_series(1, $3::int) AS g`,
    [partnerId, SEALED, count],
  );
}

async function analyse(db: DataSource): Promise<void> {
  for (const table of GROWING_TABLES) await db.query(`VACUUM (ANALYZE) ${table}`);
}

/** The hot partner and a fresh credential of its own, as a request meets them. */
interface Live {
  partnerId: string;
  apiKey: string;
}

async function seedLive(db: DataSource, partnerId: string): Promise<Live> {
  const apiKey = `pk_sandbox_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  await new CredentialsRepository(db).insert({ apiKey, partnerId, secretSealed: SEALED, scopes: ['read'] });
  return { partnerId, apiKey };
}

const credentials = (q: ExplainingQueryable) => new CredentialsRepository(q as unknown as DataSource);
const partners = (q: ExplainingQueryable) => new PartnersRepository(q as unknown as DataSource);
const manager = (q: ExplainingQueryable) => q as unknown as EntityManager;

/** Every statement a request or an operator's credential command sends, by operation. */
const operations: Record<string, PlannedOperation<Live>> = {
  'authenticate a request': (q, live) => credentials(q).findForAuthentication(live.apiKey),
  'authenticate an unknown key': (q) => credentials(q).findForAuthentication('pk_sandbox_unknownunknownunknown1'),
  'read a partner': (q, live) => partners(q).find(live.partnerId),
  'create a partner': (q) =>
    partners(q).insertIfAbsent({ partnerId: randomUUID(), name: 'New partner', rateLimitPerMinute: 600 }, manager(q)),
  'issue a credential': (q, live) =>
    credentials(q).insert(
      {
        apiKey: `pk_sandbox_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
        partnerId: live.partnerId,
        secretSealed: SEALED,
        scopes: ['read'],
      },
      manager(q),
    ),
  'revoke a credential': (q, live) => credentials(q).revoke(live.apiKey, manager(q)),
  'revoke it again': (q, live) => credentials(q).revoke(live.apiKey, manager(q)),
};

describeFlatQueries({
  title: 'gateway queries against a growing number of partners and credentials',
  scratchName: 'gateway_query_plans',
  serviceDataSource: gatewayDataSource,
  growingTables: GROWING_TABLES,
  timeoutMs: SEED_TIMEOUT_MS,
  async seedBefore(db) {
    await seedPartners(db, HISTORY.partnersBefore);
    const hotPartner = randomUUID();
    await new PartnersRepository(db).insertIfAbsent({ partnerId: hotPartner, name: 'Hot', rateLimitPerMinute: 600 });
    await seedRotations(db, hotPartner, HISTORY.rotationsBefore);
    return { hotPartner };
  },
  async seedAdded(db, { hotPartner }) {
    await seedPartners(db, HISTORY.partnersAdded);
    await seedRotations(db, hotPartner, HISTORY.rotationsAdded);
  },
  analyse,
  liveContext: (db, { hotPartner }) => seedLive(db, hotPartner),
  operations: () => operations,
  minimumRows: {
    partners: HISTORY.partnersBefore + HISTORY.partnersAdded,
    credentials: HISTORY.partnersBefore + HISTORY.partnersAdded + HISTORY.rotationsAdded,
  },
});
