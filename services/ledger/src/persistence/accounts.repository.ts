import { DataSource, EntityManager, queryPrepared, queryRows } from '@platform/persistence';
import type { Currency } from '@platform/money';
import type { KesAccountStatus, ServiceAccountCode } from '../domain/account';

export interface PartnerAccountSet {
  partnerId: string;
  kesAccountId: string;
  usdtAccountId: string;
  usdAccountId: string;
  kesAccountReference: string;
  usdtDepositAddress: string | null;
  kesAccountStatus: KesAccountStatus;
}

export interface BalanceRow {
  accountId: string;
  currency: Currency;
  posted: string;
  held: string;
}

const PARTNER_ACCOUNT_COLUMNS = `partner_id, kes_account_id, usdt_account_id, usd_account_id, kes_account_reference, usdt_deposit_address, kes_account_status`;

function toAccountSet(row: Record<string, string | null>): PartnerAccountSet {
  return {
    partnerId: row.partner_id!,
    kesAccountId: row.kes_account_id!,
    usdtAccountId: row.usdt_account_id!,
    usdAccountId: row.usd_account_id!,
    kesAccountReference: row.kes_account_reference!,
    usdtDepositAddress: row.usdt_deposit_address,
    kesAccountStatus: row.kes_account_status as KesAccountStatus,
  };
}

const PARTNER_ACCOUNTS_SQL = `SELECT ${PARTNER_ACCOUNT_COLUMNS} FROM partner_accounts WHERE partner_id = $1`;

const PARTNER_ACCOUNTS_WITH_KES_SQL = `
  SELECT ${PARTNER_ACCOUNT_COLUMNS.split(', ')
    .map((column) => `p.${column}`)
    .join(', ')}, a.posted::text AS kes_posted, a.held::text AS kes_held
    FROM partner_accounts p JOIN accounts a ON a.id = p.kes_account_id WHERE p.partner_id = $1`;

/** A service account and the shards its postings are spread over (the base first). */
export interface ServiceAccountRow {
  id: string;
  code: string;
  currency: Currency;
  allowNegative: boolean;
  /** The base and its shards, base first; just the base for an account without shards. */
  shardIds: string[];
}

export class AccountsRepository {
  private serviceAccounts: Promise<Map<string, ServiceAccountRow>> | null = null;

  constructor(private readonly dataSource: DataSource) {}

  /** Id of a service account (the base of its shards); loaded once (created by migration, never changed). */
  async serviceAccountId(code: ServiceAccountCode, currency: Currency): Promise<string> {
    const account = (await this.loadServiceAccounts()).get(`${code}:${currency}`);
    if (!account) throw new Error(`service account ${code} ${currency} missing: migrations not applied?`);
    return account.id;
  }

  /** The service accounts by base id: { base id → row }; loaded once. */
  async serviceAccountsById(): Promise<Map<string, ServiceAccountRow>> {
    return new Map([...(await this.loadServiceAccounts()).values()].map((row) => [row.id, row]));
  }

  /** A service account's posted and held summed over its shards. */
  async serviceBalance(accountId: string): Promise<{ posted: string; held: string }> {
    const account = (await this.serviceAccountsById()).get(accountId);
    if (!account) throw new Error(`service account ${accountId} unknown`);
    const [row] = await this.dataSource.query(
      'SELECT sum(posted)::text AS posted, sum(held)::text AS held FROM accounts WHERE id = ANY($1::uuid[])',
      [account.shardIds],
    );
    return { posted: row.posted, held: row.held };
  }

  private loadServiceAccounts(): Promise<Map<string, ServiceAccountRow>> {
    this.serviceAccounts ??= this.readServiceAccounts().catch((error) => {
      this.serviceAccounts = null;
      throw error;
    });
    return this.serviceAccounts;
  }

  private async readServiceAccounts(): Promise<Map<string, ServiceAccountRow>> {
    const rows: { id: string; code: string; currency: Currency; allow_negative: boolean; shard_of: string | null }[] =
      await this.dataSource.query(
        'SELECT id, code, currency, allow_negative, shard_of FROM accounts WHERE code IS NOT NULL ORDER BY code',
      );
    const bases = new Map<string, ServiceAccountRow>();
    for (const row of rows.filter((candidate) => candidate.shard_of === null))
      bases.set(row.id, {
        id: row.id,
        code: row.code,
        currency: row.currency,
        allowNegative: row.allow_negative,
        shardIds: [row.id],
      });
    for (const row of rows.filter((candidate) => candidate.shard_of !== null))
      bases.get(row.shard_of!)?.shardIds.push(row.id);
    return new Map([...bases.values()].map((row) => [`${row.code}:${row.currency}`, row]));
  }

  /**
   * The partner's accounts. Every order asks (GetPartnerAccounts): outside a caller's
   * transaction, a named prepared statement on the pool (by primary key).
   */
  async findPartnerAccounts(
    partnerId: string,
    manager: EntityManager | DataSource = this.dataSource,
  ): Promise<PartnerAccountSet | null> {
    const [row] =
      manager === this.dataSource
        ? await queryPrepared<Record<string, string | null>>(
            this.dataSource,
            'partner_accounts',
            PARTNER_ACCOUNTS_SQL,
            [partnerId],
          )
        : await manager.query(PARTNER_ACCOUNTS_SQL, [partnerId]);
    return row ? toAccountSet(row) : null;
  }

  /**
   * The partner's accounts and its KES account's balance, in one indexed
   * statement (the partner's row, then the KES account by primary key). Every
   * order's first ledger call: a named prepared statement on the pool.
   */
  async findPartnerAccountsWithKesBalance(
    partnerId: string,
  ): Promise<{ accounts: PartnerAccountSet; kesBalance: BalanceRow } | null> {
    const [row] = await queryPrepared<Record<string, string | null>>(
      this.dataSource,
      'partner_accounts_kes',
      PARTNER_ACCOUNTS_WITH_KES_SQL,
      [partnerId],
    );
    if (!row) return null;
    const accounts = toAccountSet(row);
    return {
      accounts,
      kesBalance: { accountId: accounts.kesAccountId, currency: 'KES', posted: row.kes_posted!, held: row.kes_held! },
    };
  }

  async findByDepositAddress(address: string): Promise<PartnerAccountSet | null> {
    const [row] = await this.dataSource.query(
      `SELECT ${PARTNER_ACCOUNT_COLUMNS} FROM partner_accounts WHERE usdt_deposit_address = $1`,
      [address],
    );
    return row ? toAccountSet(row) : null;
  }

  async findByKesReference(reference: string, manager: EntityManager): Promise<PartnerAccountSet | null> {
    const [row] = await manager.query(
      `SELECT ${PARTNER_ACCOUNT_COLUMNS} FROM partner_accounts WHERE kes_account_reference = $1`,
      [reference],
    );
    return row ? toAccountSet(row) : null;
  }

  async createPartnerAccounts(
    manager: EntityManager,
    partnerId: string,
    kesAccountReference: string,
    usdtDepositAddress: string | null,
    kesAccountStatus: KesAccountStatus = 'active',
  ): Promise<PartnerAccountSet> {
    const ids: Record<string, string> = {};
    for (const currency of ['KES', 'USDT', 'USD'] as const) {
      const [row] = await manager.query(
        'INSERT INTO accounts (currency, partner_id, allow_negative) VALUES ($1, $2, false) RETURNING id',
        [currency, partnerId],
      );
      ids[currency] = row.id;
    }
    const [row] = await manager.query(
      `INSERT INTO partner_accounts (partner_id, kes_account_id, usdt_account_id, usd_account_id, kes_account_reference, usdt_deposit_address, kes_account_status)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${PARTNER_ACCOUNT_COLUMNS}`,
      [partnerId, ids.KES, ids.USDT, ids.USD, kesAccountReference, usdtDepositAddress, kesAccountStatus],
    );
    return toAccountSet(row);
  }

  async setKesAccountStatus(
    partnerId: string,
    status: KesAccountStatus,
    manager: EntityManager | DataSource = this.dataSource,
  ): Promise<PartnerAccountSet | null> {
    const [row] = await queryRows<Record<string, string | null>>(
      manager,
      `UPDATE partner_accounts SET kes_account_status = $2 WHERE partner_id = $1 RETURNING ${PARTNER_ACCOUNT_COLUMNS}`,
      [partnerId, status],
    );
    return row ? toAccountSet(row) : null;
  }

  /** Sets the deposit address only where none is set yet; answers the row as it stands, and whether this call set it. */
  async setDepositAddressIfNone(
    partnerId: string,
    address: string,
    manager: EntityManager | DataSource = this.dataSource,
  ): Promise<{ accounts: PartnerAccountSet | null; allocated: boolean }> {
    const set = await queryRows(
      manager,
      'UPDATE partner_accounts SET usdt_deposit_address = $2 WHERE partner_id = $1 AND usdt_deposit_address IS NULL RETURNING partner_id',
      [partnerId, address],
    );
    return { accounts: await this.findPartnerAccounts(partnerId, manager), allocated: set.length > 0 };
  }

  /** Balances of a partner's accounts, KES first, then USDT, then USD. One indexed read. */
  async partnerBalances(partnerId: string): Promise<BalanceRow[]> {
    const rows: { id: string; currency: Currency; posted: string; held: string }[] = await this.dataSource.query(
      `SELECT id, currency, posted::text AS posted, held::text AS held FROM accounts WHERE partner_id = $1
       ORDER BY array_position(ARRAY['KES', 'USDT', 'USD'], currency)`,
      [partnerId],
    );
    return rows.map((row) => ({ accountId: row.id, currency: row.currency, posted: row.posted, held: row.held }));
  }
}
