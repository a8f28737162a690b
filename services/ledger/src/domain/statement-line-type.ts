/**
 * What a partner reads as the type of a statement line, from what the ledger
 * records. The ledger has no column for it: a hold line is named by its
 * source, and a posting by its entry's kind, the snake_case word the service
 * that moved the money chose (PostEntry, PostHold, or the ledger's own credits
 * and deposits). The mapping is stated once here and in the README; a kind
 * this table does not know reads `adjustment` rather than a guess.
 *
 * The database keeps a copy of this table (and of the currencies' scales) to
 * write each line's presented object when the line is written (migration
 * 1799100000000-ledger-statement-lines-presented): a change here ships with a
 * migration that restates that copy and writes the lines' objects again;
 * statement-json.int.spec.ts fails until it does.
 */
// The partner contract states the types; the ledger only maps its records onto them.
import type { STATEMENT_LINE_TYPES } from '@platform/openapi/dist/contract/statuses';

export type StatementLineType = (typeof STATEMENT_LINE_TYPES)[number];

export type StatementLineSource = 'opening_balance' | 'posting' | 'hold_placed' | 'hold_released';

export const ENTRY_KIND_TYPES: Readonly<Record<string, StatementLineType>> = {
  kes_credit: 'credit', // a paybill or mobile-money credit (credit.received)
  usdt_deposit: 'credit', // a USDT deposit credited at once (usdt_credit.received)
  usdt_deposit_released: 'credit', // a deposit held for attribution, credited when its window passed
  order_buy: 'order',
  order_buy_settlement: 'order',
  order_buy_pay_in: 'order',
  order_buy_pay_in_settlement: 'order',
  order_sell: 'order',
  order_sell_settlement: 'order',
  order_sell_deposit_returned: 'reversal', // a sell order's USDT given back to the balance
  transfer: 'transfer', // amount and fee in one posting (the fee is on the transfer)
  usdt_send: 'usdt_send',
  collection_credit: 'collection', // a USD collection's net amount (the fee never reaches the account)
};

/** Fallbacks by the words a kind is made of, for kinds added after this table. */
function typeFromWords(kind: string): StatementLineType {
  const words = kind.split('_');
  if (words.includes('reversal') || words.includes('refund') || words.includes('returned')) return 'reversal';
  if (words.includes('fee')) return 'fee';
  return 'adjustment';
}

export function statementLineType(source: StatementLineSource, entryKind: string | null): StatementLineType {
  if (source !== 'posting') return source;
  if (entryKind === null) return 'adjustment';
  return ENTRY_KIND_TYPES[entryKind] ?? typeFromWords(entryKind);
}
