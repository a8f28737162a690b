/**
 * What an order's create reads before it judges anything: the quote it names,
 * whether an order was already made under its partnerReference, the platform
 * switches and the partner's trading profile. ONE statement (one snapshot, one
 * round trip, one commit) run as a named prepared statement on the pool: every
 * read in it is by a primary or unique key, so the plan a connection keeps is
 * the right one at any size. It replaces a read transaction of four statements
 * (BEGIN, four reads, COMMIT: six round trips, each statement planned anew).
 */
import type { DataSource } from '@platform/persistence';
import { queryPrepared } from '@platform/persistence';
import { PlatformSwitches, SWITCH_DEFAULTS, SwitchName } from '../domain/platform-switches';
import type { PartnerTradingProfile } from './partner-profiles.repository';
import type { QuoteRecord } from './quotes.repository';

export interface OrderIntakeRead {
  /** The partner's quote, consumed or not; null when unknown, another partner's, or not named by a uuid. */
  quote: QuoteRecord | null;
  /** The order already made under the partnerReference, by id (a replay reads it whole). */
  originalOrderId: string | null;
  switches: PlatformSwitches;
  profile: PartnerTradingProfile | null;
}

/** The quote's columns (its id null when no quote was found) beside the rest of the intake. */
interface IntakeRow extends Omit<QuoteRecord, 'quoteId'> {
  quoteId: string | null;
  originalOrderId: string | null;
  switches: Partial<Record<SwitchName, string>>;
  profileStatus: string | null;
  buyMode: PartnerTradingProfile['buyMode'];
  sellMode: PartnerTradingProfile['sellMode'];
  perOrderCapKes: string;
}

/** $1 partner, $2 quote (NULL when the id is not a uuid: no quote), $3 partnerReference. */
const INTAKE_SQL = `
  SELECT q.quote_id AS "quoteId", q.side, q.kes_amount::text AS "kesAmount", q.usdt_amount::text AS "usdtAmount",
         q.rate::text AS rate, q.fee_kes::text AS "feeKes", q.fee_bps AS "feeBps", q.fee_flat_kes::text AS "feeFlatKes",
         q.fee_cap_kes::text AS "feeCapKes", q.kes_total_amount::text AS "kesTotalAmount", q.expires_at AS "expiresAt",
         (SELECT o.order_id FROM orders o WHERE o.partner_id = $1 AND o.partner_reference = $3) AS "originalOrderId",
         coalesce((SELECT jsonb_object_agg(s.name, s.value) FROM platform_switches s), '{}'::jsonb) AS switches,
         p.status AS "profileStatus", p.buy_mode AS "buyMode", p.sell_mode AS "sellMode",
         p.per_order_cap_kes::text AS "perOrderCapKes"
    FROM (SELECT) AS one
    LEFT JOIN quotes q ON q.quote_id = $2 AND q.partner_id = $1
    LEFT JOIN partner_profiles p ON p.partner_id = $1`;

export class OrderIntakeRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** `partnerId` must be a uuid (the create checks its shape first); `quoteId` null reads no quote. */
  async read(partnerId: string, quoteId: string | null, partnerReference: string): Promise<OrderIntakeRead> {
    const [row] = await queryPrepared<IntakeRow>(this.dataSource, 'order_intake', INTAKE_SQL, [
      partnerId,
      quoteId,
      partnerReference,
    ]);
    if (!row) throw new Error('the order intake read answered no row');
    return {
      quote: row.quoteId === null ? null : quoteOf(row),
      originalOrderId: row.originalOrderId,
      switches: { ...SWITCH_DEFAULTS, ...row.switches },
      profile:
        row.profileStatus === null
          ? null
          : {
              status: row.profileStatus,
              buyMode: row.buyMode,
              sellMode: row.sellMode,
              perOrderCapKes: row.perOrderCapKes,
            },
    };
  }
}

function quoteOf(row: IntakeRow): QuoteRecord {
  const { quoteId, originalOrderId, switches, profileStatus, buyMode, sellMode, perOrderCapKes, ...quote } = row;
  return { ...quote, quoteId: quoteId! };
}
