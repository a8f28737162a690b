import { MigrationInterface, QueryRunner } from 'typeorm';

/** [name, table (columns) [WHERE …]]: a list's equality filters first, then its newest-first order. */
const INDEXES: ReadonlyArray<readonly [string, string]> = [
  ['transfers_partner_status_created_idx', 'transfers (partner_id, status, created_at DESC, transfer_id DESC)'],
  ['transfers_partner_reference_idx', 'transfers (partner_id, partner_reference)'],
  ['transfers_partner_key_idx', 'transfers (partner_id, idempotency_key)'],
  ['usdt_sends_partner_status_created_idx', 'usdt_sends (partner_id, status, created_at DESC, send_id DESC)'],
  ['usdt_sends_partner_reference_idx', 'usdt_sends (partner_id, partner_reference)'],
  [
    'mobile_money_pushes_partner_status_created_idx',
    'mobile_money_pushes (partner_id, status, created_at DESC, push_id DESC)',
  ],
  ['payout_instructions_unanswered_idx', "payout_instructions (created_at) WHERE status IN ('pending', 'submitted')"],
];

/**
 * A partner's lists filtered by something rare, and the sweep of unanswered payout
 * instructions: one index walk each, whatever the history. On (partner_id,
 * created_at) alone, GET /v1/transfers and GET /v1/usdt/sends filtered by status
 * (failed), by partner reference or by idempotency key, and GET
 * /v1/funding/mobile-money-push filtered by status (declined), read the partner's
 * whole history to find the few rows that match; and the stuck-instruction sweep
 * (status pending or submitted, oldest first) read every instruction ever made.
 * The transfers' unique key index cannot serve the listing by idempotency key: it
 * covers only single transfers (batch_id IS NULL), and the listing does not say so.
 * Built CONCURRENTLY, outside a transaction, so a deploy onto large tables does not
 * block writes.
 */
export class PayoutsPartnerFilteredListingsMigration1796700000000 implements MigrationInterface {
  name = 'PayoutsPartnerFilteredListingsMigration1796700000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, definition] of INDEXES)
      await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${definition}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of [...INDEXES].reverse()) await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  }
}
