/**
 * partner_profiles. Numeric columns are read back as the strings pg returns,
 * never as JS numbers; the fee schedule is read raw, for the domain to judge.
 */
import type { DataSource, EntityManager } from '@platform/persistence';
import { queryPrepared, queryRows } from '@platform/persistence';
import type { RawFeeSchedule } from '../domain/fee-schedule';
import { FormattedPartnerProfile, formatPartnerProfile, PartnerProfile } from '../domain/partner-profile';

interface ProfileRow {
  partner_id: string;
  status: string;
  buy_mode: string;
  sell_mode: string;
  fee_bps: number;
  fee_flat_kes: string;
  fee_cap_kes: string | null;
  per_order_cap_kes: string;
  daily_cap_kes: string;
}

const COLUMNS =
  'partner_id, status, buy_mode, sell_mode, fee_bps, fee_flat_kes, fee_cap_kes, per_order_cap_kes::text, daily_cap_kes::text';

/** What an order create needs of the profile. */
export interface PartnerTradingProfile {
  status: string;
  buyMode: 'debit_first' | 'pay_in';
  sellMode: 'deposit' | 'balance';
  perOrderCapKes: string;
}

type FeeScheduleRow = Pick<ProfileRow, 'partner_id' | 'fee_bps' | 'fee_flat_kes' | 'fee_cap_kes'>;

function feeScheduleOf(row: Omit<FeeScheduleRow, 'partner_id'>): RawFeeSchedule {
  return { feeBps: row.fee_bps, feeFlatKes: row.fee_flat_kes, feeCapKes: row.fee_cap_kes };
}

function fromRow(row: ProfileRow): FormattedPartnerProfile {
  return {
    partnerId: row.partner_id,
    status: row.status as FormattedPartnerProfile['status'],
    buyMode: row.buy_mode as FormattedPartnerProfile['buyMode'],
    sellMode: row.sell_mode as FormattedPartnerProfile['sellMode'],
    feeBps: row.fee_bps,
    feeFlatKes: row.fee_flat_kes,
    feeCapKes: row.fee_cap_kes,
    perOrderCapKes: row.per_order_cap_kes,
    dailyCapKes: row.daily_cap_kes,
  };
}

export class PartnerProfilesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Replaces the whole profile (operator action); returns it as stored. */
  async upsert(
    profile: PartnerProfile,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<FormattedPartnerProfile> {
    const p = formatPartnerProfile(profile);
    const [row] = await manager.query(
      `INSERT INTO partner_profiles (partner_id, status, buy_mode, sell_mode, fee_bps, fee_flat_kes, fee_cap_kes, per_order_cap_kes, daily_cap_kes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (partner_id) DO UPDATE SET
         status = EXCLUDED.status, buy_mode = EXCLUDED.buy_mode, sell_mode = EXCLUDED.sell_mode,
         fee_bps = EXCLUDED.fee_bps, fee_flat_kes = EXCLUDED.fee_flat_kes, fee_cap_kes = EXCLUDED.fee_cap_kes,
         per_order_cap_kes = EXCLUDED.per_order_cap_kes, daily_cap_kes = EXCLUDED.daily_cap_kes, updated_at = now()
       RETURNING ${COLUMNS}`,
      [
        p.partnerId,
        p.status,
        p.buyMode,
        p.sellMode,
        p.feeBps,
        p.feeFlatKes,
        p.feeCapKes,
        p.perOrderCapKes,
        p.dailyCapKes,
      ],
    );
    return fromRow(row as ProfileRow);
  }

  /** The stored fee schedule, unjudged; null when the partner has no profile. Every quote's read: prepared, by primary key. */
  async findFeeSchedule(partnerId: string): Promise<RawFeeSchedule | null> {
    const [row] = await queryPrepared<Omit<FeeScheduleRow, 'partner_id'>>(
      this.dataSource,
      'fee_schedule_read',
      'SELECT fee_bps, fee_flat_kes, fee_cap_kes FROM partner_profiles WHERE partner_id = $1',
      [partnerId],
    );
    return row ? feeScheduleOf(row) : null;
  }

  /**
   * The stored fee schedules of `partnerIds`, unjudged, by partner; a partner without a profile is
   * absent. A batch of quotes' read: one named prepared statement for all its partners.
   */
  async findFeeSchedules(partnerIds: readonly string[]): Promise<Map<string, RawFeeSchedule>> {
    const rows = await queryPrepared<FeeScheduleRow>(
      this.dataSource,
      'fee_schedules_read',
      'SELECT partner_id, fee_bps, fee_flat_kes, fee_cap_kes FROM partner_profiles WHERE partner_id = ANY($1::uuid[])',
      [partnerIds],
    );
    return new Map(rows.map((row) => [row.partner_id, feeScheduleOf(row)]));
  }

  /** Status, funding modes and per-order cap; null when the partner has no profile. */
  async findTradingProfile(
    partnerId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PartnerTradingProfile | null> {
    const [row] = await queryRows<PartnerTradingProfile>(
      manager,
      'SELECT status, buy_mode AS "buyMode", sell_mode AS "sellMode", per_order_cap_kes::text AS "perOrderCapKes" FROM partner_profiles WHERE partner_id = $1',
      [partnerId],
    );
    return row ?? null;
  }

  /** The per-order and daily caps, unlocked (a limits read); null when the partner has no profile. */
  async findCaps(partnerId: string): Promise<{ perOrderCapKes: string; dailyCapKes: string } | null> {
    const [row] = await queryRows<{ perOrderCapKes: string; dailyCapKes: string }>(
      this.dataSource.manager,
      'SELECT per_order_cap_kes::text AS "perOrderCapKes", daily_cap_kes::text AS "dailyCapKes" FROM partner_profiles WHERE partner_id = $1',
      [partnerId],
    );
    return row ?? null;
  }

  /** Suspends or resumes the partner inside the caller's (audited) transaction; null when the partner has no profile. */
  async setStatus(manager: EntityManager, partnerId: string, status: string): Promise<string | null> {
    const [row] = await queryRows<{ status: string }>(
      manager,
      'UPDATE partner_profiles SET status = $2, updated_at = now() WHERE partner_id = $1 RETURNING status',
      [partnerId, status],
    );
    return row?.status ?? null;
  }
}
