import type { EntityManager } from '@platform/persistence';

/** A pay-in buy order's payment reference, registered by trading. */
export interface PaymentReferenceRecord {
  reference: string;
  partnerId: string;
  orderId: string;
}

const COLUMNS = 'reference, partner_id AS "partnerId", order_id AS "orderId"';

export class PaymentReferencesRepository {
  async find(manager: EntityManager, reference: string): Promise<PaymentReferenceRecord | null> {
    const [row] = await manager.query(`SELECT ${COLUMNS} FROM payment_references WHERE reference = $1`, [reference]);
    return row ?? null;
  }

  async findByOrder(manager: EntityManager, orderId: string): Promise<PaymentReferenceRecord | null> {
    const [row] = await manager.query(`SELECT ${COLUMNS} FROM payment_references WHERE order_id = $1`, [orderId]);
    return row ?? null;
  }

  /** Inserts unless the reference or the order is already registered: null then (the caller reads what is there). */
  async insert(manager: EntityManager, record: PaymentReferenceRecord): Promise<PaymentReferenceRecord | null> {
    const [row] = await manager.query(
      `INSERT INTO payment_references (reference, partner_id, order_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [record.reference, record.partnerId, record.orderId],
    );
    return row ?? null;
  }
}
