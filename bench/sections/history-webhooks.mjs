// The webhook rows of `npm run bench -- --history`: bench/webhook-delivery.mjs twice, run once
// the history section's stack is stopped (it starts its own workers on the same slot's
// infrastructure, each run on a fresh svc_webhook_delivery database): first as it is, then with
// the history's finished deliveries seeded before each burst (bench/lib/webhook-history.js).
// Deliveries/s, publish→ack p50 / p99 and rows read per delivery per table, beside the first.
import { childBench } from '../lib/child-bench.mjs';
import { historySizes } from '../lib/history-rows.js';
import { webhookHistoryEnv, webhookHistoryRows } from '../lib/webhook-history.js';

const SECTION = 'history: webhook delivery on a seeded database beside an empty one';

export async function historyWebhooksSection(ctx) {
  const { partners, webhookDeliveries } = historySizes(ctx.options.history.factor);
  const run = (deliveries) =>
    childBench('webhook-delivery.mjs', 'webhook-delivery-', webhookHistoryEnv({ deliveries, partners }));
  const empty = await run(0);
  const seeded = await run(webhookDeliveries);
  const label = `${webhookDeliveries.toLocaleString('en-US')} earlier deliveries over ${partners.toLocaleString('en-US')} partners`;
  ctx.rows.push(...webhookHistoryRows({ seeded, empty, label, section: SECTION }));
  return { empty, seeded };
}
