// Payouts' record of a settled transfer: its confirmation (the code only as its hash, used),
// the transfer row, and the payout instruction that took it to the bank (instruction id =
// transfer id). Clones are settled transfers like the template, each with an idempotency key
// and partner reference of its own. A template still on its way would be cloned with its
// timers set and picked up by the schedulers, so seeding stops unless every row is final.
import { literal } from '../lib/clone-sql.js';
import { SeedSchemaError } from './clone.mjs';

const FINAL_SQL = `
  SELECT t.status AS transfer, t.next_action_at IS NULL AS "transferIdle", c.status AS confirmation,
         i.status AS instruction, i.next_attempt_at IS NULL AS "instructionIdle"
    FROM transfers t
    LEFT JOIN confirmations c ON c.confirmation_id = t.confirmation_id
    LEFT JOIN payout_instructions i ON i.transfer_id = t.transfer_id
   WHERE t.transfer_id = $1`;

export const payoutsTransfers = {
  name: 'payouts transfer, confirmation and payout instruction',
  database: 'svc_payouts',
  /** A transfer always has these rows: their absence is a schema this seeder does not know. */
  required: true,
  async prepare(client, template) {
    const { rows } = await client.query(FINAL_SQL, [template.subjectId]);
    const row = rows[0];
    if (!row) throw new SeedSchemaError(`svc_payouts.transfers has no transfer ${template.subjectId}`);
    const final =
      row.transfer === 'settled' &&
      row.transferIdle &&
      row.confirmation === 'used' &&
      row.instruction === 'settled' &&
      row.instructionIdle;
    if (!final)
      throw new SeedSchemaError(
        `the template transfer is not settled and idle: transfer ${row.transfer} (timer ${row.transferIdle ? 'off' : 'on'}), ` +
          `confirmation ${row.confirmation}, instruction ${row.instruction} (timer ${row.instructionIdle ? 'off' : 'on'})`,
      );
  },
  async plans(template, tag) {
    const transferId = `${literal(template.subjectId)}::uuid`;
    const reference = `${literal(`seed-${tag}-`)} || s.i`;
    return [
      {
        table: 'confirmations',
        where: `tpl.subject_id = ${transferId}`,
        requiredColumns: ['confirmation_id', 'subject_id', 'status'],
      },
      {
        table: 'transfers',
        where: `tpl.transfer_id = ${transferId}`,
        requiredColumns: ['transfer_id', 'partner_id', 'confirmation_id', 'status', 'next_action_at'],
        // (partner_id, idempotency_key) is the create's idempotency claim: one per clone, the reference with it.
        overrides: { idempotency_key: reference, partner_reference: reference },
      },
      {
        table: 'payout_instructions',
        where: `tpl.transfer_id = ${transferId}`,
        requiredColumns: ['instruction_id', 'transfer_id', 'status', 'next_attempt_at'],
      },
    ];
  },
};
