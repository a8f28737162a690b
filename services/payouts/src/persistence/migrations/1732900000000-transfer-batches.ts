import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Transfer batches: one confirmation for many transfers. The batch
 * claims its idempotency key as a transfer does; each accepted item is a
 * transfer row with batch_id (its item key unique within the batch, outside
 * the partner's single-transfer keys); refused items are kept in
 * transfer_batch_items with their failure code.
 */
export class TransferBatchesMigration1732900000000 implements MigrationInterface {
  name = 'TransferBatchesMigration1732900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE transfer_batches (
        batch_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        request_hash text NOT NULL,
        status text NOT NULL CHECK (status IN ('creating', 'created')),
        confirmation_id uuid REFERENCES confirmations (confirmation_id),
        item_count integer NOT NULL CHECK (item_count BETWEEN 1 AND 100),
        created_at timestamptz NOT NULL DEFAULT now(),
        next_action_at timestamptz
      )`);
    await queryRunner.query(
      'CREATE UNIQUE INDEX transfer_batches_idempotency_key_idx ON transfer_batches (partner_id, idempotency_key)',
    );
    await queryRunner.query(
      'CREATE INDEX transfer_batches_due_idx ON transfer_batches (next_action_at) WHERE next_action_at IS NOT NULL',
    );
    await queryRunner.query(`
      CREATE TABLE transfer_batch_items (
        batch_id uuid NOT NULL REFERENCES transfer_batches (batch_id) ON DELETE CASCADE,
        item_index integer NOT NULL CHECK (item_index >= 0),
        idempotency_key text NOT NULL,
        transfer_id uuid REFERENCES transfers (transfer_id),
        failure_code text,
        PRIMARY KEY (batch_id, item_index),
        CHECK ((transfer_id IS NULL) = (failure_code IS NOT NULL))
      )`);
    await queryRunner.query('ALTER TABLE transfers ADD COLUMN batch_id uuid REFERENCES transfer_batches (batch_id)');
    await queryRunner.query('DROP INDEX transfers_idempotency_key_idx');
    await queryRunner.query(
      'CREATE UNIQUE INDEX transfers_idempotency_key_idx ON transfers (partner_id, idempotency_key) WHERE batch_id IS NULL',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX transfers_batch_item_key_idx ON transfers (batch_id, idempotency_key) WHERE batch_id IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'DELETE FROM payout_instructions WHERE transfer_id IN (SELECT transfer_id FROM transfers WHERE batch_id IS NOT NULL)',
    );
    await queryRunner.query('DELETE FROM transfers WHERE batch_id IS NOT NULL');
    await queryRunner.query('DROP INDEX transfers_batch_item_key_idx');
    await queryRunner.query('DROP INDEX transfers_idempotency_key_idx');
    await queryRunner.query(
      'CREATE UNIQUE INDEX transfers_idempotency_key_idx ON transfers (partner_id, idempotency_key)',
    );
    await queryRunner.query('ALTER TABLE transfers DROP COLUMN batch_id');
    await queryRunner.query('DROP TABLE transfer_batch_items');
    await queryRunner.query('DROP TABLE transfer_batches');
  }
}
