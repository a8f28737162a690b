// Proves, against PostgreSQL, that the partner index migration recovers from a week's build stopped on an
// earlier run (here by its lock timeout, behind a write left open): the invalid index the stopped build left under the week's name is dropped and built again,
// attached, and the parent's index ends valid, where keeping it (`IF NOT EXISTS`) would attach an invalid
// index and leave the parent's invalid for good while the migration is recorded applied.
import { randomUUID } from 'node:crypto';
import { RetentionStand, retentionStand } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { WebhookDeliveryPartnerClaimMigration1799875000000 } from '../src/persistence/migrations/1799875000000-webhook-delivery-partner-claim';

const PARENT_INDEX = 'webhook_deliveries_partner_due_idx';

describe('the partner index migration (webhook-delivery)', () => {
  let stand: RetentionStand;

  beforeAll(async () => {
    stand = await retentionStand('webhook_delivery_partner_claim_migration', webhookDeliveryDataSource);
  });
  afterAll(() => stand?.drop());

  async function validity(index: string): Promise<boolean | undefined> {
    const [row] = (await stand.db.query('SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)', [
      index,
    ])) as Array<{ valid: boolean }>;
    return row?.valid;
  }

  it('rebuilds a week index a stopped build left invalid, and ends with the parent index valid', async () => {
    const migration = new WebhookDeliveryPartnerClaimMigration1799875000000();
    const runner = stand.db.createQueryRunner();
    let weekIndex = '';
    try {
      await migration.down(runner);
      await runner.query(
        `CREATE INDEX IF NOT EXISTS ${PARENT_INDEX} ON ONLY webhook_deliveries (partner_id, next_attempt_at)
         WHERE status = 'pending'`,
      );
      // A write left open on this week: the week's build waits for it, and stops at its lock timeout, as a
      // build stopped by a timeout does, leaving an invalid index under the week's name.
      const writer = stand.db.createQueryRunner();
      try {
        await writer.startTransaction();
        const [{ week }] = (await writer.query(
          `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status,
                                           next_attempt_at, created_at)
           VALUES (gen_random_uuid(), gen_random_uuid(), $1, 'transfer.completed', '{}', 'https://example.test/hook',
                   'pending', now(), now())
           RETURNING tableoid::regclass::text AS week`,
          [randomUUID()],
        )) as Array<{ week: string }>;
        weekIndex = `${week}_partner_due_idx`;
        await runner.query(`SET lock_timeout = '200ms'`);
        await expect(
          runner.query(
            `CREATE INDEX CONCURRENTLY ${weekIndex} ON ${week} (partner_id, next_attempt_at) WHERE status = 'pending'`,
          ),
        ).rejects.toThrow(/lock timeout/);
        await runner.query('RESET lock_timeout');
      } finally {
        if (writer.isTransactionActive) await writer.rollbackTransaction();
        await writer.release();
      }
      expect(await validity(weekIndex)).toBe(false);

      await migration.up(runner);

      expect(await validity(weekIndex)).toBe(true);
      expect(await validity(PARENT_INDEX)).toBe(true);
      // The session's timeouts are the pool's again.
      const [{ statement_timeout: timeout }] = (await runner.query('SHOW statement_timeout')) as Array<{
        statement_timeout: string;
      }>;
      expect(timeout).not.toBe('0');
    } finally {
      await runner.release();
    }
  });
});
