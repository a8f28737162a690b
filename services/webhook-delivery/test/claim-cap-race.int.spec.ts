// Proves, against PostgreSQL, that a partner's in-flight cap holds when another replica commits a claim of
// the partner's rows in the middle of this replica's claim: between the claim's first step (the walk in due
// order) and its second (the partners with free slots). A trigger holds this replica's claim inside its
// first step's lease update, the other replica's claim is committed meanwhile, and the second step must see
// it: it counts what is in flight in its own statement, not from before the first step.
import { randomUUID } from 'node:crypto';
import { QueryRunner } from 'typeorm';
import { RetentionStand, retentionStand } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';

const CAP = 4;
const BATCH = 4;
const LEASE_MS = 30_000;
/** The advisory lock the trigger waits on in the held session. */
const GATE_KEY = 7_542_001;
/** How long the test waits for the held claim to reach the gate. */
const GATE_WAIT_MS = 10_000;

describe('the claim under a concurrent claim (webhook-delivery)', () => {
  let stand: RetentionStand;
  const capped = randomUUID();
  const early = randomUUID();
  const contested = randomUUID();

  beforeAll(async () => {
    stand = await retentionStand('webhook_delivery_claim_race', webhookDeliveryDataSource);
    await stand.db.query(`
      CREATE FUNCTION hold_claim_at_gate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_setting('test.claim_gate', true) = 'on' THEN PERFORM pg_advisory_xact_lock(${GATE_KEY}); END IF;
        RETURN NEW;
      END $$`);
    await stand.db.query(
      'CREATE TRIGGER hold_claim_at_gate BEFORE UPDATE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION hold_claim_at_gate()',
    );
  });
  afterAll(() => stand?.drop());

  /** `count` deliveries of `partner`, pending and due `dueAgo` ago, or in flight (leased). */
  async function plant(partner: string, count: number, state: 'due' | 'in flight', dueAgo = '1 minute') {
    const rows = (await stand.db.query(
      `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status,
                                       next_attempt_at, lease_id, created_at)
       SELECT gen_random_uuid(), gen_random_uuid(), $1, 'transfer.completed', '{}', 'https://example.test/hook',
              CASE WHEN $3 THEN 'delivering' ELSE 'pending' END,
              CASE WHEN $3 THEN now() + interval '1 minute' ELSE now() - $4::interval + g * interval '1 millisecond' END,
              CASE WHEN $3 THEN gen_random_uuid() END, now()
         FROM generate_series(1, $2::int) AS g
       RETURNING delivery_id`,
      [partner, count, state === 'in flight', dueAgo],
    )) as Array<{ delivery_id: string }>;
    return rows.map((row) => row.delivery_id);
  }

  async function inFlight(partner: string): Promise<number> {
    const [row] = (await stand.db.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = $1 AND status = 'delivering'`,
      [partner],
    )) as Array<{ n: number }>;
    return row!.n;
  }

  async function untilHeldAtGate(): Promise<void> {
    const deadline = Date.now() + GATE_WAIT_MS;
    for (;;) {
      const [row] = (await stand.db.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`,
        [GATE_KEY],
      )) as Array<{ n: number }>;
      if (row!.n > 0) return;
      if (Date.now() > deadline) throw new Error('the claim never reached the gate');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("keeps a partner within its cap when another replica claims the partner's rows between the two steps", async () => {
    // The walk of the batch meets the early partner's one row and the capped partner's backlog: one row
    // claimed of a full walk, so the claim goes on to the partners with free slots, where the contested
    // partner's rows come next.
    await plant(capped, CAP, 'in flight');
    await plant(capped, 10, 'due', '2 minutes');
    const [earlyRow] = await plant(early, 1, 'due', '3 minutes');
    const contestedRows = await plant(contested, 2 * CAP, 'due', '1 minute');

    const gate: QueryRunner = stand.db.createQueryRunner();
    const held: QueryRunner = stand.db.createQueryRunner();
    try {
      await gate.query('SELECT pg_advisory_lock($1)', [GATE_KEY]);
      await held.query(`SET test.claim_gate = 'on'`);
      const claiming = held.query('SELECT delivery_id, partner_id FROM claim_due_deliveries($1, $2, $3)', [
        CAP,
        BATCH,
        LEASE_MS,
      ]) as Promise<Array<{ delivery_id: string; partner_id: string }>>;
      await untilHeldAtGate();
      // The other replica's claim, committed while this one is held in its first step: the contested
      // partner's first rows, up to its cap.
      await stand.db.query(
        `UPDATE webhook_deliveries SET status = 'delivering', lease_id = gen_random_uuid(),
                next_attempt_at = now() + interval '30 seconds'
          WHERE delivery_id = ANY($1::uuid[])`,
        [contestedRows.slice(0, CAP)],
      );
      await gate.query('SELECT pg_advisory_unlock($1)', [GATE_KEY]);
      const claimed = await claiming;

      expect(claimed.map((row) => row.delivery_id)).toEqual([earlyRow]);
      expect(await inFlight(contested)).toBe(CAP);
      expect(await inFlight(capped)).toBe(CAP);
    } finally {
      await gate.release();
      await held.query('RESET test.claim_gate');
      await held.release();
    }
  });
});
