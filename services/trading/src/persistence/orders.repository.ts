/**
 * orders: numeric columns come back as strings, never JS numbers. Methods that
 * must run inside a caller's transaction take its manager; the others read
 * through the data source unless given one.
 */
import type { DataSource, DueRows, EntityManager, PageBounds } from '@platform/persistence';
import { claimDueSql, newestFirstPageSql, queryPrepared, queryRows } from '@platform/persistence';
import type { OrderRecord, OrderStatus, OrderViewRecord } from '../domain/order';

export const ORDER_COLUMNS = `order_id AS "orderId", partner_id AS "partnerId", partner_reference AS "partnerReference", quote_id AS "quoteId",
  side, funding_mode AS "fundingMode", status, kes_amount::text AS "kesAmount", usdt_amount::text AS "usdtAmount", rate::text AS rate,
  fee_kes::text AS "feeKes", fee_bps AS "feeBps", fee_flat_kes::text AS "feeFlatKes", fee_cap_kes::text AS "feeCapKes",
  kes_total_amount::text AS "kesTotalAmount", expires_at AS "expiresAt", kes_debit_status AS "kesDebitStatus", debit_outcome AS "debitOutcome",
  deposit_address AS "depositAddress", send_before AS "sendBefore", payout_account_id AS "payoutAccountId", tx_hash AS "txHash",
  deposit_usdt_amount::text AS "depositUsdtAmount", payout_instruction_id AS "payoutInstructionId", refusal_code AS "refusalCode",
  next_action_at AS "nextActionAt", funds_confirmed_at AS "fundsConfirmedAt", completed_at AS "completedAt", created_at AS "createdAt",
  wallet_id AS "walletId", payment_reference AS "paymentReference", paybill, beneficiary_name AS "beneficiaryName", pay_before AS "payBefore",
  payment_rail_reference AS "paymentRailReference", payment_bank_transaction_id AS "paymentBankTransactionId",
  payment_matched_at AS "paymentMatchedAt", payment_kes_amount::text AS "paymentKesAmount"`;

/**
 * What a partner's read of an order needs (OrderViewRecord): the answer's fields and the owner. The
 * other ten columns (the order's bookkeeping: its timers, the debit outcome, payout ids, the funds'
 * times) are neither converted to text by PostgreSQL nor parsed by the driver for each order read.
 */
const ORDER_VIEW_COLUMNS = `order_id AS "orderId", partner_id AS "partnerId", partner_reference AS "partnerReference",
  side, funding_mode AS "fundingMode", status, kes_amount::text AS "kesAmount", usdt_amount::text AS "usdtAmount", rate::text AS rate,
  fee_kes::text AS "feeKes", fee_bps AS "feeBps", fee_flat_kes::text AS "feeFlatKes", fee_cap_kes::text AS "feeCapKes",
  kes_total_amount::text AS "kesTotalAmount", expires_at AS "expiresAt", kes_debit_status AS "kesDebitStatus",
  deposit_address AS "depositAddress", send_before AS "sendBefore", tx_hash AS "txHash", created_at AS "createdAt",
  wallet_id AS "walletId", payment_reference AS "paymentReference", paybill, beneficiary_name AS "beneficiaryName", pay_before AS "payBefore",
  payment_rail_reference AS "paymentRailReference", payment_bank_transaction_id AS "paymentBankTransactionId",
  payment_matched_at AS "paymentMatchedAt"`;

const ORDER_READ_SQL = `SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE order_id = $1`;
const ORDERS_READ_SQL = `SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE order_id = ANY($1::uuid[])`;

export interface OrderListFilter {
  partnerId: string;
  status: OrderStatus | null;
  partnerReference: string | null;
  page: PageBounds;
}

/** An order with its exact position in the newest-first listing. */
export type ListedOrder = OrderRecord & { createdAtExact: string };

type PaymentFields = 'paymentRailReference' | 'paymentBankTransactionId' | 'paymentMatchedAt' | 'paymentKesAmount';
type PayInFields = 'walletId' | 'paymentReference' | 'paybill' | 'beneficiaryName' | 'payBefore';

/** A new order; the pay-in fields are given by pay-in buys only. */
export type NewOrder = Omit<
  OrderRecord,
  | 'txHash'
  | 'depositUsdtAmount'
  | 'payoutInstructionId'
  | 'fundsConfirmedAt'
  | 'completedAt'
  | 'createdAt'
  | 'refusalCode'
  | PaymentFields
  | PayInFields
> &
  Partial<Pick<OrderRecord, PayInFields>>;

/** What trading_place_order answers: the order made now, the one made before under the reference, or a refusal. */
export type OrderPlacement =
  | { outcome: 'placed'; order: OrderRecord }
  | { outcome: 'replay'; order: OrderRecord }
  | { outcome: 'quote_unavailable'; order: null }
  | { outcome: 'exceeded'; order: null }
  | { outcome: 'partner_not_found'; order: null };

/**
 * The key an order is created under: one order per (partner, partnerReference).
 * The placement serialises on it, and it is the whole identity of the request.
 */
export function orderReferenceKey(partnerId: string, partnerReference: string): string {
  return `order:${partnerId}:${partnerReference}`;
}

const PLACE_ORDER_SQL = `SELECT p.outcome, ${ORDER_COLUMNS}
  FROM trading_place_order($1::jsonb, $2, $3::numeric, $4::timestamptz) p, LATERAL (SELECT (p.placed).*) o`;

/** The new order as the row's columns (jsonb_populate_record reads them by name); money stays strings. */
function placedColumns(order: NewOrder): Record<string, string | number | null> {
  const at = (date: Date | null | undefined) => (date ? date.toISOString() : null);
  return {
    order_id: order.orderId,
    partner_id: order.partnerId,
    partner_reference: order.partnerReference,
    quote_id: order.quoteId,
    side: order.side,
    funding_mode: order.fundingMode,
    status: order.status,
    kes_amount: order.kesAmount,
    usdt_amount: order.usdtAmount,
    rate: order.rate,
    fee_kes: order.feeKes,
    fee_bps: order.feeBps,
    fee_flat_kes: order.feeFlatKes,
    fee_cap_kes: order.feeCapKes,
    kes_total_amount: order.kesTotalAmount,
    expires_at: at(order.expiresAt),
    kes_debit_status: order.kesDebitStatus,
    debit_outcome: order.debitOutcome,
    deposit_address: order.depositAddress,
    send_before: at(order.sendBefore),
    payout_account_id: order.payoutAccountId,
    next_action_at: at(order.nextActionAt),
    wallet_id: order.walletId ?? null,
    payment_reference: order.paymentReference ?? null,
    paybill: order.paybill ?? null,
    beneficiary_name: order.beneficiaryName ?? null,
    pay_before: at(order.payBefore),
  };
}

/**
 * An order event's outbox row, as enqueueEvent (@platform/events) writes it:
 * the payload is the bus envelope, JSON.
 */
export interface OrderOutboxRow {
  id: string;
  partnerId: string;
  type: string;
  payload: string;
  createdAt: string;
  traceparent: string | null;
}

/** Columns a step may change; only the keys given are written. */
export interface OrderChanges {
  status?: OrderRecord['status'];
  kesDebitStatus?: OrderRecord['kesDebitStatus'];
  debitOutcome?: OrderRecord['debitOutcome'];
  txHash?: string;
  depositUsdtAmount?: string;
  payoutInstructionId?: string;
  refusalCode?: string | null;
  nextActionAt?: Date | null;
  fundsConfirmedAt?: Date;
  completedAt?: Date;
  paymentRailReference?: string;
  paymentBankTransactionId?: string;
  paymentMatchedAt?: Date;
  paymentKesAmount?: string;
}

const CHANGE_COLUMNS: Record<keyof OrderChanges, string> = {
  status: 'status',
  kesDebitStatus: 'kes_debit_status',
  debitOutcome: 'debit_outcome',
  txHash: 'tx_hash',
  depositUsdtAmount: 'deposit_usdt_amount',
  payoutInstructionId: 'payout_instruction_id',
  refusalCode: 'refusal_code',
  nextActionAt: 'next_action_at',
  fundsConfirmedAt: 'funds_confirmed_at',
  completedAt: 'completed_at',
  paymentRailReference: 'payment_rail_reference',
  paymentBankTransactionId: 'payment_bank_transaction_id',
  paymentMatchedAt: 'payment_matched_at',
  paymentKesAmount: 'payment_kes_amount',
};

/**
 * A funded sell order whose proceeds payouts pays: its timer is payouts' to
 * claim (ClaimDueSellProceeds), never the order worker's. A balance-mode order
 * whose collection has not answered yet (`pending`) is still the worker's.
 */
const SELL_PROCEEDS_DUE = `side = 'sell' AND status = 'funds_reserved' AND debit_outcome IS DISTINCT FROM 'pending'`;

/** Where claimDue finds due orders: measured for the order worker's metrics. */
export const DUE_ORDERS: DueRows = {
  table: 'orders',
  dueColumn: 'next_action_at',
  idColumn: 'order_id',
  where: `NOT (${SELL_PROCEEDS_DUE})`,
};

/** Where claimDueSellProceeds finds sell orders whose proceeds payouts is to pay. */
export const DUE_SELL_PROCEEDS: DueRows = {
  table: 'orders',
  dueColumn: 'next_action_at',
  idColumn: 'order_id',
  where: SELL_PROCEEDS_DUE,
};

export class OrdersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Creates the order in ONE statement (trading_place_order, migrations/
   * 1799200000000-place-order-cap-last.ts), serialised per
   * (partner, partnerReference): an order already made under the reference
   * answers as a replay; otherwise the quote is consumed, the order inserted
   * and, last, the daily cap reserved (usage id = order id, `capKes` counted
   * at `now`), so the partner's cap window is locked only for the
   * reservation and the commit; on a refusal none of them is left. No lock
   * outlives the statement. A named prepared statement on the pool: a
   * function call, planned once per connection.
   */
  async place(order: NewOrder, capKes: string, now: Date): Promise<OrderPlacement> {
    const [row] = await queryPrepared<OrderRecord & { outcome: OrderPlacement['outcome'] }>(
      this.dataSource,
      'order_place',
      PLACE_ORDER_SQL,
      [JSON.stringify(placedColumns(order)), orderReferenceKey(order.partnerId, order.partnerReference), capKes, now],
    );
    if (!row) throw new Error('trading_place_order answered no row');
    const { outcome, ...placed } = row;
    if (outcome === 'placed' || outcome === 'replay') return { outcome, order: placed };
    return { outcome, order: null };
  }

  async find(
    orderId: string,
    options: { forUpdate?: boolean; manager?: EntityManager } = {},
  ): Promise<OrderRecord | null> {
    const manager = options.manager ?? this.dataSource.manager;
    const [row] = await queryRows<OrderRecord>(
      manager,
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE order_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
      [orderId],
    );
    return row ?? null;
  }

  /**
   * A partner's read of one order, by its primary key: a named prepared statement on
   * the pool (bind and run, no TypeORM query runner, no lock): the columns its answer shows and its owner.
   */
  async read(orderId: string): Promise<OrderViewRecord | null> {
    const [row] = await queryPrepared<OrderViewRecord>(this.dataSource, 'order_read', ORDER_READ_SQL, [orderId]);
    return row ?? null;
  }

  /**
   * Many orders by their primary keys in one statement (named, prepared, no lock), in no
   * particular order; an id without an order has no row. The caller checks whose each is.
   */
  async readMany(orderIds: readonly string[]): Promise<OrderViewRecord[]> {
    return queryPrepared<OrderViewRecord>(this.dataSource, 'orders_read_many', ORDERS_READ_SQL, [orderIds]);
  }

  /** One page of the partner's orders, newest first, along orders_partner_created_idx. */
  async list(filter: OrderListFilter): Promise<ListedOrder[]> {
    const { sql, parameters } = newestFirstPageSql({
      table: 'orders',
      select: ORDER_COLUMNS,
      where: ['partner_id = $1'],
      parameters: [filter.partnerId],
      equals: { status: filter.status, partner_reference: filter.partnerReference },
      bounds: filter.page,
      columns: { createdAt: 'created_at', id: 'order_id' },
    });
    return queryRows<ListedOrder>(this.dataSource.manager, sql, parameters);
  }

  /**
   * The partner's order carrying this hash. A hash is public on the chain, so it
   * is unique per partner only: a lookup never crosses partners.
   */
  async findByTxHash(
    partnerId: string,
    txHash: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<OrderRecord | null> {
    const [row] = await queryRows<OrderRecord>(
      manager,
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE partner_id = $1 AND tx_hash = $2`,
      [partnerId, txHash],
    );
    return row ?? null;
  }

  /** The status of each of `orderIds` that exists (hold reconciliation: an id absent from the map has no order). */
  async statusesOf(orderIds: string[]): Promise<Map<string, OrderStatus>> {
    if (orderIds.length === 0) return new Map();
    const rows = await queryRows<{ orderId: string; status: OrderStatus }>(
      this.dataSource.manager,
      'SELECT order_id AS "orderId", status FROM orders WHERE order_id = ANY($1::uuid[])',
      [orderIds],
    );
    return new Map(rows.map((row) => [row.orderId, row.status]));
  }

  /**
   * Applies the changes only while the order is still in `expectedStatus`
   * (compare-and-set): null when another step moved it first. In the same
   * statement, only when the order moved: `also.event`, its outbox row, and
   * `also.releaseCap`, its cap usage (the order id) released (first release
   * wins; the cap_usages triggers give the KES back). One statement is its own
   * transaction: no BEGIN and COMMIT round trips, and nothing held between them.
   */
  async update(
    manager: EntityManager,
    orderId: string,
    expectedStatus: OrderRecord['status'],
    changes: OrderChanges,
    expectedDebitOutcome?: OrderRecord['debitOutcome'],
    also: { event?: OrderOutboxRow; releaseCap?: boolean } = {},
  ): Promise<OrderRecord | null> {
    const keys = (Object.keys(changes) as (keyof OrderChanges)[]).filter((key) => changes[key] !== undefined);
    const parameters: unknown[] = [
      orderId,
      expectedStatus,
      expectedDebitOutcome ?? null,
      ...keys.map((key) => changes[key]),
    ];
    const sets = keys.map((key, index) => `${CHANGE_COLUMNS[key]} = $${index + 4}`);
    // $3 NULL means "any debit outcome"; otherwise the outcome must still be the one the caller read.
    const move = `UPDATE orders SET ${[...sets, 'updated_at = now()'].join(', ')}
        WHERE order_id = $1 AND status = $2 AND ($3::text IS NULL OR debit_outcome = $3)`;
    if (!also.event && !also.releaseCap)
      return (
        (await this.rowsOf<OrderRecord>(manager, 'order_move', `${move} RETURNING ${ORDER_COLUMNS}`, parameters))[0] ??
        null
      );
    const parts = [`updated AS (${move} RETURNING *)`];
    if (also.event) {
      const { event } = also;
      const first =
        parameters.push(event.id, event.partnerId, event.type, event.payload, event.createdAt, event.traceparent) - 5;
      const slots = [0, 1, 2, 3, 4, 5].map((offset) => `$${first + offset}`);
      parts.push(`event AS (INSERT INTO outbox (id, partner_id, type, payload, created_at, traceparent)
        SELECT ${slots[0]}::uuid, ${slots[1]}::uuid, ${slots[2]}, ${slots[3]}::jsonb, ${slots[4]}::timestamptz, ${slots[5]} FROM updated)`);
    }
    if (also.releaseCap)
      parts.push(`released AS (UPDATE cap_usages SET released_at = now()
        WHERE usage_id = $1 AND released_at IS NULL AND EXISTS (SELECT 1 FROM updated))`);
    const [row] = await this.rowsOf<OrderRecord>(
      manager,
      'order_move',
      `WITH ${parts.join(',\n')} SELECT ${ORDER_COLUMNS} FROM updated`,
      parameters,
    );
    return row ?? null;
  }

  /**
   * The same move for many orders in ONE statement (one commit): each order
   * that is still in `expectedStatus` (and, when given, `expectedDebitOutcome`)
   * takes `changes`, and its own outbox row (`events[i]` for `orderIds[i]`) is
   * written only when it moved. Answers the orders that moved; one moved by
   * another step first is simply absent.
   */
  async updateMany(
    manager: EntityManager,
    moves: { orderIds: string[]; events: OrderOutboxRow[] },
    expectedStatus: OrderRecord['status'],
    changes: OrderChanges,
    expectedDebitOutcome?: OrderRecord['debitOutcome'],
  ): Promise<OrderRecord[]> {
    const { orderIds, events } = moves;
    if (orderIds.length !== events.length) throw new Error('updateMany needs one event per order');
    if (orderIds.length === 0) return [];
    const keys = (Object.keys(changes) as (keyof OrderChanges)[]).filter((key) => changes[key] !== undefined);
    const parameters: unknown[] = [
      orderIds,
      events.map((event) => event.id),
      events.map((event) => event.partnerId),
      events.map((event) => event.type),
      events.map((event) => event.payload),
      events.map((event) => event.createdAt),
      events.map((event) => event.traceparent),
      expectedStatus,
      expectedDebitOutcome ?? null,
      ...keys.map((key) => changes[key]),
    ];
    const sets = keys.map((key, index) => `${CHANGE_COLUMNS[key]} = $${index + 10}`);
    return this.rowsOf<OrderRecord>(
      manager,
      'orders_move',
      `WITH moves AS (
           SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::jsonb[], $6::timestamptz[], $7::text[])
             AS m(moved_order_id, event_id, event_partner_id, event_type, event_payload, event_created_at, event_traceparent)),
         updated AS (
           UPDATE orders SET ${[...sets, 'updated_at = now()'].join(', ')} FROM moves
            WHERE order_id = moved_order_id AND status = $8 AND ($9::text IS NULL OR debit_outcome = $9)
            RETURNING orders.*, event_id, event_partner_id, event_type, event_payload, event_created_at, event_traceparent),
         event AS (
           INSERT INTO outbox (id, partner_id, type, payload, created_at, traceparent)
           SELECT event_id, event_partner_id, event_type, event_payload, event_created_at, event_traceparent FROM updated)
         SELECT ${ORDER_COLUMNS} FROM updated`,
      parameters,
    );
  }

  /**
   * A move's rows. Outside a caller's transaction (given the data source's own
   * manager) the statement runs as a named prepared statement on the pool: a
   * connection plans each move's text once (a handful of texts, one per kind of
   * move), every read in it by primary key. Inside one, through its manager.
   */
  private async rowsOf<T>(manager: EntityManager, purpose: string, sql: string, parameters: unknown[]): Promise<T[]> {
    if (manager === this.dataSource.manager) return queryPrepared<T>(this.dataSource, purpose, sql, parameters);
    return queryRows<T>(manager, sql, parameters);
  }

  async delete(manager: EntityManager, orderId: string): Promise<void> {
    await manager.query('DELETE FROM orders WHERE order_id = $1', [orderId]);
  }

  /**
   * Claims up to `limit` due orders for this replica: their timer moves `leaseMs`
   * ahead, so no other replica takes them while this one works, and a replica
   * that dies mid-step leaves them to be retaken when the lease passes. Sell
   * orders awaiting their proceeds are left to claimDueSellProceeds.
   */
  async claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<OrderRecord[]> {
    return queryRows<OrderRecord>(
      manager,
      claimDueSql(DUE_ORDERS, { idColumn: 'order_id', returning: ORDER_COLUMNS }),
      [limit, leaseMs],
    );
  }

  /**
   * Claims up to `limit` sell orders whose proceeds are due, for payouts, the
   * same way: leased `leaseMs` ahead, oldest timer first.
   */
  async claimDueSellProceeds(manager: EntityManager, limit: number, leaseMs: number): Promise<OrderRecord[]> {
    return queryRows<OrderRecord>(
      manager,
      claimDueSql(DUE_SELL_PROCEEDS, { idColumn: 'order_id', returning: ORDER_COLUMNS }),
      [limit, leaseMs],
    );
  }
}
