import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * trading_place_order keeps the plans of its statements, and of what it runs
 * inside (cap_reserve, the cap window's lock, the cap_usages triggers), as one
 * generic plan each per connection: `plan_cache_mode = force_generic_plan` for
 * the call. Left to choose, PL/pgSQL planned several of them anew at every
 * order (the triggers' reads of their arrays, the twin read, the RETURN
 * QUERYs), because a plan made for the call's values looks cheaper than the
 * generic one: planning was a larger share of an order's statements than
 * running them. Every statement in the call reads by a primary or unique key
 * (the twin by (partner_id, partner_reference), the quote and the cap window by
 * their keys, the buckets by theirs), so the generic plan is the right one at
 * any size; cap-window.int.spec.ts and query-plans.int.spec.ts measure the
 * reservation and the placement with generic plans against a large history.
 * The setting holds for the call only; nothing else changes.
 */
const PLACE_ORDER = 'trading_place_order(jsonb, text, numeric, timestamptz)';

export class PlaceOrderGenericPlansMigration1798100000000 implements MigrationInterface {
  name = 'PlaceOrderGenericPlansMigration1798100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER FUNCTION ${PLACE_ORDER} SET plan_cache_mode = force_generic_plan`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER FUNCTION ${PLACE_ORDER} RESET plan_cache_mode`);
  }
}
