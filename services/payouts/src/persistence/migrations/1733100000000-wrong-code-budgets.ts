import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-partner budget of wrong confirmation codes (src/domain/wrong-code-budget.ts).
 * - confirmation_code_budgets: one row per partner that ever sent a wrong code.
 *   Every wrong code row-locks it first, so one partner's wrong codes are counted
 *   one after another and two at once both count. locked_at is set by the wrong
 *   code that spends the budget and cleared only by an operator (cleared_at).
 * - wrong_confirmation_codes: one row per wrong code counted, pruned past the
 *   window as new ones arrive and deleted by the operator's clear; a partner never
 *   holds more than its budget plus the guesses racing the lock. Never the code.
 */
export class WrongCodeBudgetsMigration1733100000000 implements MigrationInterface {
  name = 'WrongCodeBudgetsMigration1733100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE confirmation_code_budgets (
        partner_id uuid PRIMARY KEY,
        locked_at timestamptz,
        cleared_at timestamptz
      )`);
    await queryRunner.query(`
      CREATE TABLE wrong_confirmation_codes (
        wrong_code_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        partner_id uuid NOT NULL REFERENCES confirmation_code_budgets (partner_id),
        confirmation_id uuid NOT NULL,
        counted_at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      'CREATE INDEX wrong_confirmation_codes_partner_idx ON wrong_confirmation_codes (partner_id, counted_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE wrong_confirmation_codes');
    await queryRunner.query('DROP TABLE confirmation_code_budgets');
  }
}
