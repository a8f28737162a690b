import type { DataSource, EntityManager, SealedColumn } from '@platform/persistence';

/** Where endpoint secrets are stored sealed: what `ops secrets reseal` moves to a new key. */
export const ENDPOINT_SEALED_COLUMNS: SealedColumn[] = [
  { table: 'endpoints', idColumn: 'partner_id', column: 'secret_sealed' },
  { table: 'endpoints', idColumn: 'partner_id', column: 'previous_secret_sealed' },
];

/** An endpoint as stored: secrets stay sealed until the moment they sign. */
export interface EndpointRecord {
  partnerId: string;
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  updatedAt: Date;
}

interface EndpointRow {
  partner_id: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  updated_at: Date;
}

const COLUMNS = 'partner_id, url, secret_sealed, previous_secret_sealed, previous_secret_expires_at, updated_at';

const toRecord = (row: EndpointRow): EndpointRecord => ({
  partnerId: row.partner_id,
  url: row.url,
  secretSealed: row.secret_sealed,
  previousSecretSealed: row.previous_secret_sealed,
  previousSecretExpiresAt: row.previous_secret_expires_at,
  updatedAt: row.updated_at,
});

export class EndpointsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(partnerId: string): Promise<EndpointRecord | null> {
    const [row] = (await this.dataSource.query(`SELECT ${COLUMNS} FROM endpoints WHERE partner_id = $1`, [
      partnerId,
    ])) as EndpointRow[];
    return row ? toRecord(row) : null;
  }

  /** Reads and locks the row for the rest of the caller's transaction. */
  async findForUpdate(manager: EntityManager, partnerId: string): Promise<EndpointRecord | null> {
    const [row] = (await manager.query(`SELECT ${COLUMNS} FROM endpoints WHERE partner_id = $1 FOR UPDATE`, [
      partnerId,
    ])) as EndpointRow[];
    return row ? toRecord(row) : null;
  }

  async upsert(manager: EntityManager, endpoint: Omit<EndpointRecord, 'updatedAt'>): Promise<EndpointRecord> {
    const [row] = (await manager.query(
      `INSERT INTO endpoints (partner_id, url, secret_sealed, previous_secret_sealed, previous_secret_expires_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (partner_id) DO UPDATE SET
         url = EXCLUDED.url,
         secret_sealed = EXCLUDED.secret_sealed,
         previous_secret_sealed = EXCLUDED.previous_secret_sealed,
         previous_secret_expires_at = EXCLUDED.previous_secret_expires_at,
         updated_at = now()
       RETURNING ${COLUMNS}`,
      [
        endpoint.partnerId,
        endpoint.url,
        endpoint.secretSealed,
        endpoint.previousSecretSealed,
        endpoint.previousSecretExpiresAt,
      ],
    )) as EndpointRow[];
    if (!row) throw new Error('endpoint upsert returned no row');
    return toRecord(row);
  }

  /** The endpoint URLs of those partners that have one, in one query. */
  async findUrls(partnerIds: readonly string[]): Promise<Map<string, string>> {
    if (partnerIds.length === 0) return new Map();
    const rows = (await this.dataSource.query(
      'SELECT partner_id, url FROM endpoints WHERE partner_id = ANY($1::uuid[])',
      [partnerIds],
    )) as Array<{ partner_id: string; url: string }>;
    return new Map(rows.map((row) => [row.partner_id, row.url]));
  }
}
