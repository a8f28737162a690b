// Proves webhook-delivery's retention against PostgreSQL, on a scratch database
// migrated by its own migrations and swept with its own rules: finished deliveries
// (delivered, dead, held without an endpoint) created more than
// DELIVERY_RETENTION_DAYS ago are deleted in batches, with their attempts and the
// partner retries naming them, in one statement; a delivery still pending, one not
// yet given its feed position, and one inside the window are kept whatever else
// holds; the delete walks the index its migration added.
import { randomUUID } from 'node:crypto';
import { RetentionStand, retentionStand } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { webhookDeliveryRetentionRules } from '../src/workers/retention.worker';

const DAY_MS = 24 * 60 * 60_000;
const RETENTION_DAYS = 37;
const [rule] = webhookDeliveryRetentionRules({ deliveryRetentionDays: RETENTION_DAYS, partitionsAheadWeeks: 4 });

type Planted = { status: 'pending' | 'delivered' | 'dead' | 'no_endpoint'; ageDays: number; positioned?: boolean };

describe('delivery retention (webhook-delivery)', () => {
  let stand: RetentionStand;
  let position = 0;

  beforeAll(async () => {
    stand = await retentionStand('webhook_delivery_retention', webhookDeliveryDataSource);
  });
  afterAll(() => stand?.drop());

  /** A delivery of `status` created `ageDays` ago, with one attempt (and a partner retry when finished). */
  async function plant({ status, ageDays, positioned = true }: Planted): Promise<string> {
    const deliveryId = randomUUID();
    const partnerId = randomUUID();
    const createdAt = new Date(Date.now() - ageDays * DAY_MS);
    position += 1;
    await stand.db.query(
      `INSERT INTO deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status,
                               next_attempt_at, created_at, delivered_at, feed_position, attempt_count)
       VALUES ($1, $2, $3, 'order.settled', '{}', CASE WHEN $4 = 'no_endpoint' THEN NULL ELSE 'https://example.test/hook' END,
               $4, CASE WHEN $4 = 'pending' THEN now() END, $5, CASE WHEN $4 = 'delivered' THEN $5::timestamptz END, $6, 1)`,
      [deliveryId, randomUUID(), partnerId, status, createdAt, positioned ? position : null],
    );
    await stand.db.query(
      `INSERT INTO delivery_attempts (id, delivery_id, attempt_number, started_at, latency_ms, status_code)
       VALUES ($1, $2, 1, $3, 12, 500)`,
      [randomUUID(), deliveryId, createdAt],
    );
    if (status !== 'pending')
      await stand.db.query('INSERT INTO partner_retries (partner_id, delivery_id, requested_at) VALUES ($1, $2, $3)', [
        partnerId,
        deliveryId,
        createdAt,
      ]);
    return deliveryId;
  }

  async function remaining(table: string, ids: string[]): Promise<string[]> {
    const rows = (await stand.db.query(`SELECT DISTINCT delivery_id FROM ${table} WHERE delivery_id = ANY($1)`, [
      ids,
    ])) as Array<{ delivery_id: string }>;
    return rows.map((row) => row.delivery_id).sort();
  }

  it('deletes finished deliveries past the window with their attempts and retries, and keeps the rest', async () => {
    const old = RETENTION_DAYS + 3;
    const finished: string[] = [];
    for (const status of ['delivered', 'dead', 'no_endpoint'] as const)
      for (let index = 0; index < 8; index += 1) finished.push(await plant({ status, ageDays: old }));
    const kept = [
      await plant({ status: 'pending', ageDays: old }),
      await plant({ status: 'delivered', ageDays: old, positioned: false }),
      await plant({ status: 'delivered', ageDays: RETENTION_DAYS - 3 }),
    ].sort();

    await stand.sweep([rule!], 10);

    const all = [...finished, ...kept];
    expect(await remaining('deliveries', all)).toEqual(kept);
    expect(await remaining('delivery_attempts', all)).toEqual(kept);
    expect(await remaining('partner_retries', finished)).toEqual([]);
  });

  it('walks the index of finished deliveries by creation time', async () => {
    expect(await stand.deletePlan(rule!)).toContain('deliveries_finished_created_idx');
  });
});
