/** sandbox_rate_overrides: per-partner rate pins, shared by every trading replica. */
import { Big, formatDecimal, RATE_SCALE } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import { queryPrepared } from '@platform/persistence';
import type { SandboxRateOverride, SandboxRateOverrideStore } from '../adapters/rate-feed/sandbox-rate-feed';

interface OverrideRow {
  partner_id: string;
  bid: string;
  ask: string;
  halted_at: Date | null;
}

function fromRow(row: OverrideRow): SandboxRateOverride {
  return { partnerId: row.partner_id, bid: new Big(row.bid), ask: new Big(row.ask), haltedAt: row.halted_at };
}

export class SandboxRateOverridesRepository implements SandboxRateOverrideStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Every sandbox quote's read: a named prepared statement, by primary key. */
  async find(partnerId: string): Promise<SandboxRateOverride | null> {
    const [row] = await queryPrepared<OverrideRow>(
      this.dataSource,
      'sandbox_rate_read',
      'SELECT partner_id, bid::text, ask::text, halted_at FROM sandbox_rate_overrides WHERE partner_id = $1',
      [partnerId],
    );
    return row ? fromRow(row) : null;
  }

  /** A batch of quotes' read: the pins of those of `partnerIds` that have one, one named prepared statement. */
  async findMany(partnerIds: readonly string[]): Promise<Map<string, SandboxRateOverride>> {
    const rows = await queryPrepared<OverrideRow>(
      this.dataSource,
      'sandbox_rates_read',
      'SELECT partner_id, bid::text, ask::text, halted_at FROM sandbox_rate_overrides WHERE partner_id = ANY($1::uuid[])',
      [partnerIds],
    );
    return new Map(rows.map((row) => [row.partner_id, fromRow(row)]));
  }

  async upsert(override: SandboxRateOverride): Promise<SandboxRateOverride> {
    const [row] = await this.dataSource.query(
      `INSERT INTO sandbox_rate_overrides (partner_id, bid, ask, halted_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (partner_id) DO UPDATE SET bid = EXCLUDED.bid, ask = EXCLUDED.ask, halted_at = EXCLUDED.halted_at, updated_at = now()
       RETURNING partner_id, bid::text, ask::text, halted_at`,
      [
        override.partnerId,
        formatDecimal(override.bid, RATE_SCALE),
        formatDecimal(override.ask, RATE_SCALE),
        override.haltedAt === null ? null : override.haltedAt.toISOString(),
      ],
    );
    return fromRow(row as OverrideRow);
  }
}
