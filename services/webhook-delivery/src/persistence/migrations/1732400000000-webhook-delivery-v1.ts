import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoints (one per partner, secrets sealed), deliveries (one per event and
 * partner; the row is also the retry timer) and the history of every attempt.
 */
export class WebhookDeliveryV1Migration1732400000000 implements MigrationInterface {
  name = 'WebhookDeliveryV1Migration1732400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE endpoints (
        partner_id uuid PRIMARY KEY,
        url text NOT NULL CHECK (url LIKE 'https://%' AND length(url) <= 2048),
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT endpoints_previous_secret_pair CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL))
      )`);
    // body: the partner envelope serialised once; every attempt sends these exact bytes.
    // lease_id: set while one replica holds the delivery (status 'delivering'); the
    // attempt is recorded only while the lease is still that replica's.
    await queryRunner.query(`
      CREATE TABLE deliveries (
        delivery_id uuid PRIMARY KEY,
        event_id uuid NOT NULL,
        partner_id uuid NOT NULL,
        event_type text NOT NULL,
        body text NOT NULL,
        endpoint_url text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivering', 'delivered', 'dead')),
        attempt_count integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
        next_attempt_at timestamptz,
        lease_id uuid,
        last_status_code integer,
        last_error_class text,
        last_latency_ms integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz,
        CONSTRAINT deliveries_event_partner_key UNIQUE (event_id, partner_id),
        CONSTRAINT deliveries_timer_when_open CHECK ((status IN ('pending', 'delivering')) = (next_attempt_at IS NOT NULL)),
        CONSTRAINT deliveries_lease_when_delivering CHECK ((status = 'delivering') = (lease_id IS NOT NULL)),
        CONSTRAINT deliveries_delivered_at CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending'`);
    await queryRunner.query(
      `CREATE INDEX deliveries_leased_idx ON deliveries (partner_id, next_attempt_at) WHERE status = 'delivering'`,
    );
    await queryRunner.query(
      'CREATE INDEX deliveries_partner_created_idx ON deliveries (partner_id, created_at DESC, delivery_id DESC)',
    );
    await queryRunner.query(`
      CREATE TABLE delivery_attempts (
        id uuid PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES deliveries (delivery_id),
        attempt_number integer NOT NULL CHECK (attempt_number >= 1),
        started_at timestamptz NOT NULL,
        latency_ms integer NOT NULL CHECK (latency_ms >= 0),
        status_code integer,
        error_class text,
        response_excerpt text NOT NULL DEFAULT '' CHECK (octet_length(response_excerpt) <= 512),
        CONSTRAINT delivery_attempts_outcome CHECK (status_code IS NOT NULL OR error_class IS NOT NULL)
      )`);
    await queryRunner.query(
      'CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, attempt_number)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE delivery_attempts');
    await queryRunner.query('DROP TABLE deliveries');
    await queryRunner.query('DROP TABLE endpoints');
  }
}
