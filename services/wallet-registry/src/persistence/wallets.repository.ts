import { randomUUID } from 'node:crypto';
import { EntityManager, queryRows } from '@platform/persistence';
import type { ScreeningStatus, Wallet, WalletInput, WalletStatus } from '../domain/wallet';

interface WalletRow {
  id: string;
  partner_id: string;
  chain: string;
  asset: string;
  address: string;
  label: string;
  status: WalletStatus;
  screening_status: ScreeningStatus;
  created_at: Date;
}

const COLUMNS = 'id, partner_id, chain, asset, address, label, status, screening_status, created_at';
/** Bound on one listing of a partner's wallets. */
export const WALLETS_LISTED_MAX = 1_000;

function toWallet(row: WalletRow): Wallet {
  return {
    walletId: row.id,
    partnerId: row.partner_id,
    chain: row.chain,
    asset: row.asset,
    address: row.address,
    label: row.label,
    status: row.status,
    screeningStatus: row.screening_status,
    createdAt: row.created_at,
  };
}

/** Statements on `wallets`; each runs in the caller's transaction (manager). */
export class WalletsRepository {
  /**
   * The partner's non-revoked wallet for the address, created when there is
   * none, and locked FOR UPDATE either way. Concurrent registrations of one
   * address queue on the unique index and the row lock: one wallet results.
   */
  async insertOrLock(
    manager: EntityManager,
    partnerId: string,
    input: WalletInput,
  ): Promise<{ wallet: Wallet; created: boolean }> {
    const [inserted] = await queryRows<WalletRow>(
      manager,
      `INSERT INTO wallets (id, partner_id, chain, asset, address, label, status, screening_status)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending_partner_approval', 'pending')
       ON CONFLICT (partner_id, chain, address) WHERE status <> 'revoked' DO NOTHING RETURNING ${COLUMNS}`,
      [randomUUID(), partnerId, input.chain, input.asset, input.address, input.label],
    );
    if (inserted) return { wallet: toWallet(inserted), created: true };
    const [existing] = await queryRows<WalletRow>(
      manager,
      `SELECT ${COLUMNS} FROM wallets WHERE partner_id = $1 AND chain = $2 AND address = $3 AND status <> 'revoked' FOR UPDATE`,
      [partnerId, input.chain, input.address],
    );
    if (!existing) throw new Error('wallet conflict without a non-revoked row');
    return { wallet: toWallet(existing), created: false };
  }

  /** The partner's wallet, locked FOR UPDATE; null when unknown, foreign or revoked. */
  async lockLive(manager: EntityManager, partnerId: string, walletId: string): Promise<Wallet | null> {
    const [row] = await queryRows<WalletRow>(
      manager,
      `SELECT ${COLUMNS} FROM wallets WHERE id = $1 AND partner_id = $2 AND status <> 'revoked' FOR UPDATE`,
      [walletId, partnerId],
    );
    return row ? toWallet(row) : null;
  }

  /** Any of the partner's wallets, revoked ones included. */
  async find(manager: EntityManager, partnerId: string, walletId: string): Promise<Wallet | null> {
    const [row] = await queryRows<WalletRow>(
      manager,
      `SELECT ${COLUMNS} FROM wallets WHERE id = $1 AND partner_id = $2`,
      [walletId, partnerId],
    );
    return row ? toWallet(row) : null;
  }

  async listLive(manager: EntityManager, partnerId: string): Promise<Wallet[]> {
    const rows = await queryRows<WalletRow>(
      manager,
      `SELECT ${COLUMNS} FROM wallets WHERE partner_id = $1 AND status <> 'revoked' ORDER BY created_at DESC, id LIMIT $2`,
      [partnerId, WALLETS_LISTED_MAX],
    );
    return rows.map(toWallet);
  }

  async markPartnerApproved(manager: EntityManager, walletId: string): Promise<Wallet> {
    const [row] = await queryRows<WalletRow>(
      manager,
      `UPDATE wallets SET status = 'pending_service_approval', partner_approved_at = now()
       WHERE id = $1 AND status = 'pending_partner_approval' RETURNING ${COLUMNS}`,
      [walletId],
    );
    if (!row) throw new Error('wallet left pending_partner_approval while locked');
    return toWallet(row);
  }

  async markReviewed(
    manager: EntityManager,
    walletId: string,
    outcome: { status: WalletStatus; screeningStatus: ScreeningStatus },
  ): Promise<Wallet> {
    const [row] = await queryRows<WalletRow>(
      manager,
      `UPDATE wallets SET status = $2, screening_status = $3, reviewed_at = now()
       WHERE id = $1 AND status = 'pending_service_approval' RETURNING ${COLUMNS}`,
      [walletId, outcome.status, outcome.screeningStatus],
    );
    if (!row) throw new Error('wallet left pending_service_approval while locked');
    return toWallet(row);
  }

  /** Revokes at once; false when unknown, foreign or already revoked. */
  async revoke(manager: EntityManager, partnerId: string, walletId: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE wallets SET status = 'revoked', revoked_at = now() WHERE id = $1 AND partner_id = $2 AND status <> 'revoked' RETURNING id`,
      [walletId, partnerId],
    );
    return rows.length === 1;
  }
}
