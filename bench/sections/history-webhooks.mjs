// The webhook rows of `npm run bench -- --history`: bench/webhook-delivery.mjs twice, run once
// the history section's stack is stopped (it starts its own workers on the same slot's
// infrastructure, each run on a fresh svc_webhook_delivery database): first as it is, then with
// the history's finished deliveries seeded before each burst (bench/lib/webhook-history.js).
// Deliveries/s, publish→ack p50 / p99 and rows read per delivery per table, beside the first.
import { childBench } from '../lib/child-bench.mjs';
import { historySizes } from '../lib/history-rows.js';
import { webhookHistoryEnv, webhookHistoryRows } from '../lib/webhook-history.js';

const SECTION = 'history: webhook delivery on a seeded database beside an empty one';
/** The seeded child's time limit: the plain child's, plus this per unit of scale (it seeds once per worker count). */
const SEEDED_TIMEOUT_MS = 20 * 60_000;
const SEEDED_TIMEOUT_MS_PER_SCALE = 40 * 60_000;

export async function historyWebhooksSection(ctx) {
  const { partners, webhookDeliveries } = historySizes(ctx.options.history.factor);
  const run = (deliveries, timeoutMs) =>
    childBench('webhook-delivery.mjs', 'webhook-delivery-', webhookHistoryEnv({ deliveries, partners }), {
      timeoutMs,
    });
  const empty = await run(0); // the plain child's time limit
  const seeded = await run(
    webhookDeliveries,
    SEEDED_TIMEOUT_MS + ctx.options.history.factor * SEEDED_TIMEOUT_MS_PER_SCALE,
  );
  const label = `${webhookDeliveries.toLocaleString('en-US')} earlier deliveries over ${partners.toLocaleString('en-US')} partners`;
  ctx.rows.push(...webhookHistoryRows({ seeded, empty, label, section: SECTION }));
  return { empty, seeded };
}
