// The rolling 24-hour cap's usages in trading (usage id = the template's subject id: an
// order's, or a transfer's, which payouts reserves through trading). A reservation reads the
// partner's window (cap_windows: its total; cap_usage_buckets: KES per minute), which the
// database's triggers on cap_usages keep: each chunk of clones inserted here is counted in its
// minutes' buckets and the window total by the statement that inserts it (one change per minute
// per statement), exactly as a reservation's own insert is. `finish` checks, before the seeding
// commits, that the window holds exactly the partner's open usages from its first minute on, so
// a history the code would not see (triggers missing, say) stops the run. Absent when the cap
// lives elsewhere: then the coverage check (seed/index.mjs) names the table that holds the
// usage instead.
import { literal } from '../lib/clone-sql.js';
import { SeedSchemaError, tableExists } from './clone.mjs';

/** The window's total, its buckets and its open usages, in KES, and whether all three agree. */
const WINDOW_CHECK_SQL = `
  SELECT window_kes::text AS "windowKes", buckets_kes::text AS "bucketsKes", usages_kes::text AS "usagesKes", counted_from AS "countedFrom",
         window_kes = buckets_kes AND window_kes = usages_kes AS agree
    FROM (SELECT w.open_kes AS window_kes, w.counted_from,
                 (SELECT coalesce(sum(b.reserved_kes), 0) FROM cap_usage_buckets b WHERE b.partner_id = w.partner_id) AS buckets_kes,
                 (SELECT coalesce(sum(u.amount_kes), 0) FROM cap_usages u
                   WHERE u.partner_id = w.partner_id AND u.released_at IS NULL AND u.created_at >= w.counted_from) AS usages_kes
            FROM cap_windows w WHERE w.partner_id = $1) totals`;

export const tradingCapUsages = {
  name: 'trading daily-cap usages',
  database: 'svc_trading',
  required: false,
  async applies(client, template) {
    if (!(await tableExists(client, 'cap_usages'))) return false;
    const { rows } = await client.query('SELECT 1 FROM cap_usages WHERE usage_id = $1', [template.subjectId]);
    return rows.length > 0;
  },
  /** The partner whose window the clones fill; null on a schema without cap windows (the usages alone are the cap there). */
  async prepare(client, template) {
    if (!(await tableExists(client, 'cap_windows'))) return { partnerId: null };
    const { rows } = await client.query('SELECT partner_id AS "partnerId" FROM cap_usages WHERE usage_id = $1', [
      template.subjectId,
    ]);
    return { partnerId: rows[0].partnerId };
  },
  async plans(template) {
    return [
      {
        table: 'cap_usages',
        where: `tpl.usage_id = ${literal(template.subjectId)}::uuid`,
        requiredColumns: ['usage_id', 'partner_id', 'amount_kes', 'released_at', 'created_at'],
      },
    ];
  },
  async finish(client, template, count, prepared) {
    if (prepared.partnerId === null) return;
    const { rows } = await client.query(WINDOW_CHECK_SQL, [prepared.partnerId]);
    const window = rows[0];
    if (!window)
      throw new SeedSchemaError(
        `svc_trading.cap_windows has no window for partner ${prepared.partnerId} after seeding its usages`,
      );
    if (!window.agree) {
      throw new SeedSchemaError(
        `svc_trading.cap_windows counts ${window.windowKes} KES for partner ${prepared.partnerId}, its buckets ${window.bucketsKes}, ` +
          `its open usages from ${new Date(window.countedFrom).toISOString()} ${window.usagesKes}: are the triggers on cap_usages there?`,
      );
    }
  },
};
