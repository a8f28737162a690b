// Proves wallet-registry's reads and writes on wallets cost the same however many wallets a
// partner has registered and revoked over the years: a scratch database with this service's
// migrations, partners with a few live wallets and a history of revoked ones, each hot
// operation planned by EXPLAIN (ANALYZE); then the hot partner's revoked history a
// hundredfold (the others' tenfold) and the same operations again (libs/testing
// describeFlatQueries states the checks).
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from '@platform/persistence';
import { describeFlatQueries, ExplainingQueryable, PlannedOperation } from '@platform/testing';
import { walletRegistryDataSource } from '../src/persistence/data-source';
import { WalletsRepository } from '../src/persistence/wallets.repository';

const GROWING_TABLES = ['wallets'] as const;
const OTHER_PARTNERS = 2_000;
/** Live wallets per partner, and revoked ones before and added after, for the hot partner and the others. */
const HISTORY = { live: 5, hotBefore: 20, hotAdded: 2_000, otherBefore: 2, otherAdded: 20 };
const SEED_TIMEOUT_MS = 180_000;

/** `count` wallets of each partner, `status` revoked or active, made one a minute back from `before`. */
async function seedWallets(
  db: DataSource,
  partnerIds: readonly string[],
  { count, status, before }: { count: number; status: 'revoked' | 'active'; before: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO wallets (id, partner_id, chain, asset, address, label, status, screening_status, created_at,
                          partner_approved_at, reviewed_at, revoked_at)
     SELECT gen_random_uuid(), partner_id, 'tron', 'USDT', 'T' || substr(md5(random()::text), 1, 33), 'seeded', $3, 'cleared',
            $4::timestamptz - g * interval '1 minute', $4::timestamptz - g * interval '1 minute',
            $4::timestamptz - g * interval '1 minute', CASE WHEN $3 = 'revoked' THEN $4::timestamptz END
       FROM unnest($1::uuid[]) AS partner_id, generate_series(1, $2::int) AS g`,
    [partnerIds, count, status, before],
  );
}

async function analyse(db: DataSource): Promise<void> {
  await db.query('VACUUM (ANALYZE) wallets');
}

/** The hot partner and a wallet of its own awaiting its approval, as a request meets them. */
interface Live {
  partnerId: string;
  walletId: string;
  address: string;
}

async function seedLive(db: DataSource, partnerId: string): Promise<Live> {
  const address = `T${randomUUID().replace(/-/g, '')}`;
  const { wallet } = await new WalletsRepository().insertOrLock(db.manager, partnerId, {
    chain: 'tron',
    asset: 'USDT',
    address,
    label: 'live',
  });
  return { partnerId, walletId: wallet.walletId, address };
}

const wallets = new WalletsRepository();
const manager = (q: ExplainingQueryable) => q as unknown as EntityManager;

/** The statements of registering, approving, reading, listing and revoking a wallet, in order. */
const operations: Record<string, PlannedOperation<Live>> = {
  'register a new address': (q, live) =>
    wallets.insertOrLock(manager(q), live.partnerId, {
      chain: 'tron',
      asset: 'USDT',
      address: `T${randomUUID().replace(/-/g, '')}`,
      label: 'new',
    }),
  'register an address again': (q, live) =>
    wallets.insertOrLock(manager(q), live.partnerId, {
      chain: 'tron',
      asset: 'USDT',
      address: live.address,
      label: 'live',
    }),
  'lock a live wallet': (q, live) => wallets.lockLive(manager(q), live.partnerId, live.walletId),
  'approve it as the partner': (q, live) => wallets.markPartnerApproved(manager(q), live.walletId),
  'find a wallet': (q, live) => wallets.find(manager(q), live.partnerId, live.walletId),
  'list live wallets': (q, live) => wallets.listLive(manager(q), live.partnerId),
  'revoke a wallet': (q, live) => wallets.revoke(manager(q), live.partnerId, live.walletId),
};

describeFlatQueries({
  title: 'wallet-registry queries against a growing history of wallets',
  scratchName: 'wallet_registry_query_plans',
  serviceDataSource: walletRegistryDataSource,
  growingTables: GROWING_TABLES,
  timeoutMs: SEED_TIMEOUT_MS,
  async seedBefore(db) {
    const hotPartner = randomUUID();
    const others = Array.from({ length: OTHER_PARTNERS }, () => randomUUID());
    const now = new Date();
    await seedWallets(db, [hotPartner, ...others], { count: HISTORY.live, status: 'active', before: now });
    await seedWallets(db, [hotPartner], { count: HISTORY.hotBefore, status: 'revoked', before: now });
    await seedWallets(db, others, { count: HISTORY.otherBefore, status: 'revoked', before: now });
    return { hotPartner, others, now };
  },
  async seedAdded(db, { hotPartner, others, now }) {
    // Revoked ones interleaved in time with the live ones: a partner rotating its addresses for years.
    await seedWallets(db, [hotPartner], { count: HISTORY.hotAdded, status: 'revoked', before: now });
    await seedWallets(db, others, { count: HISTORY.otherAdded, status: 'revoked', before: now });
  },
  analyse,
  liveContext: (db, { hotPartner }) => seedLive(db, hotPartner),
  operations: () => operations,
  minimumRows: { wallets: HISTORY.hotAdded + OTHER_PARTNERS * (HISTORY.live + HISTORY.otherAdded) },
});
