/** payout_instructions: amounts read back as strings, never JS numbers. */
import type { DataSource, DueRows, EntityManager } from '@platform/persistence';
import { claimDueSql, queryRows } from '@platform/persistence';

export interface InstructionRecord {
  instructionId: string;
  partnerId: string;
  /** Set for a sell order's proceeds; null for a transfer. */
  orderId: string;
  payoutDestinationId: string;
  /** Set for a KES transfer (its destination lives on the transfer); null for order proceeds. */
  transferId: string | null;
  amountKes: string;
  status: 'pending' | 'submitted' | 'settled' | 'failed';
  failureCode: string | null;
  providerReference: string | null;
  submittedAt: Date | null;
  /** How many times a replica has claimed this instruction's step. */
  attempts: number;
  createdAt: Date;
  completedAt: Date | null;
}

const COLUMNS = `instruction_id AS "instructionId", partner_id AS "partnerId", order_id AS "orderId", payout_destination_id AS "payoutDestinationId",
  transfer_id AS "transferId", amount_kes::text AS "amountKes", status, failure_code AS "failureCode", provider_reference AS "providerReference", submitted_at AS "submittedAt",
  attempts, created_at AS "createdAt", completed_at AS "completedAt"`;

const DUE_ROWS: DueRows = {
  table: 'payout_instructions',
  dueColumn: 'next_attempt_at',
  idColumn: 'instruction_id',
  attemptsColumn: 'attempts',
};
const CLAIM_DUE_SQL = claimDueSql(DUE_ROWS, {
  idColumn: 'instruction_id',
  returning: COLUMNS,
  alsoSet: 'attempts = attempts + 1',
});

export class PayoutInstructionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts a new instruction, due at once; null when the id exists already. */
  /** A confirmed transfer's instruction, in the confirming transaction; the instruction id is the transfer id (the bank's idempotency key). */
  async insertForTransfer(
    manager: EntityManager,
    transfer: { transferId: string; partnerId: string; amountKes: string },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO payout_instructions (instruction_id, partner_id, transfer_id, amount_kes, status, next_attempt_at)
       VALUES ($1, $2, $1, $3, 'pending', now()) ON CONFLICT (instruction_id) DO NOTHING`,
      [transfer.transferId, transfer.partnerId, transfer.amountKes],
    );
  }

  /** Instructions without a bank answer `olderThanMs` after they were handed over, oldest first. */
  async listStuck(olderThanMs: number, limit: number): Promise<InstructionRecord[]> {
    return queryRows<InstructionRecord>(
      this.dataSource.manager,
      `SELECT ${COLUMNS} FROM payout_instructions WHERE status IN ('pending', 'submitted')
        AND created_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY created_at LIMIT $2`,
      [olderThanMs, limit],
    );
  }

  async insert(
    instruction: Pick<
      InstructionRecord,
      'instructionId' | 'partnerId' | 'orderId' | 'payoutDestinationId' | 'amountKes'
    >,
  ): Promise<InstructionRecord | null> {
    const [row] = await queryRows<InstructionRecord>(
      this.dataSource.manager,
      `INSERT INTO payout_instructions (instruction_id, partner_id, order_id, payout_destination_id, amount_kes, status, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', now()) ON CONFLICT (instruction_id) DO NOTHING RETURNING ${COLUMNS}`,
      [
        instruction.instructionId,
        instruction.partnerId,
        instruction.orderId,
        instruction.payoutDestinationId,
        instruction.amountKes,
      ],
    );
    return row ?? null;
  }

  async find(instructionId: string): Promise<InstructionRecord | null> {
    const [row] = await queryRows<InstructionRecord>(
      this.dataSource.manager,
      `SELECT ${COLUMNS} FROM payout_instructions WHERE instruction_id = $1`,
      [instructionId],
    );
    return row ?? null;
  }

  /** Where claimDue finds due rows: measured for this worker's metrics. */
  readonly dueRows: DueRows = DUE_ROWS;

  /** Claims due instructions for this replica, leased `leaseMs` ahead. */
  async claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<InstructionRecord[]> {
    return queryRows<InstructionRecord>(manager, CLAIM_DUE_SQL, [limit, leaseMs]);
  }

  async markSubmitted(
    instructionId: string,
    providerReference: string,
    submittedAt: Date,
    nextAttemptAt: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.query(
      `UPDATE payout_instructions SET status = 'submitted', provider_reference = $2, submitted_at = $3, next_attempt_at = $4
        WHERE instruction_id = $1 AND status = 'pending'`,
      [instructionId, providerReference, submittedAt, nextAttemptAt],
    );
  }

  async reschedule(
    instructionId: string,
    nextAttemptAt: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.query(
      "UPDATE payout_instructions SET next_attempt_at = $2 WHERE instruction_id = $1 AND status IN ('pending', 'submitted')",
      [instructionId, nextAttemptAt],
    );
  }

  /** Final: settled, or failed with its code. Only from a non-final status. */
  async complete(
    instructionId: string,
    outcome: { status: 'settled' } | { status: 'failed'; failureCode: string },
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.query(
      `UPDATE payout_instructions SET status = $2, failure_code = $3, completed_at = now(), next_attempt_at = NULL
        WHERE instruction_id = $1 AND status IN ('pending', 'submitted')`,
      [instructionId, outcome.status, outcome.status === 'failed' ? outcome.failureCode : null],
    );
  }
}
