// Proves the statement's type mapping: hold and opening lines by their source,
// postings by their entry's kind, unknown kinds by their words or as adjustment.
import { statementLineType } from './statement-line-type';

describe('statementLineType', () => {
  it.each([
    ['kes_credit', 'credit'],
    ['usdt_deposit_released', 'credit'],
    ['order_buy_settlement', 'order'],
    ['order_sell_settlement', 'order'],
    ['order_sell_deposit_returned', 'reversal'],
    ['transfer', 'transfer'],
    ['usdt_send', 'usdt_send'],
    ['collection_credit', 'collection'],
    ['kes_debit_reversal', 'reversal'],
    ['monthly_fee', 'fee'],
    ['something_new', 'adjustment'],
  ])('a posting of kind %s reads %s', (kind, type) => {
    expect(statementLineType('posting', kind)).toBe(type);
  });

  it('names hold and opening lines by their source, whatever the kind', () => {
    expect(statementLineType('hold_placed', null)).toBe('hold_placed');
    expect(statementLineType('hold_released', 'transfer')).toBe('hold_released');
    expect(statementLineType('opening_balance', null)).toBe('opening_balance');
    expect(statementLineType('posting', null)).toBe('adjustment');
  });
});
