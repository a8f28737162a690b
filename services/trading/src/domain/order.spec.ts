import { Big, formatAmount, formatDecimal, RATE_SCALE } from '@platform/money';
import { orderEventData, OrderRecord, OrderViewRecord, orderView } from './order';

function record(amounts: Partial<OrderViewRecord>): OrderViewRecord {
  return {
    orderId: 'o',
    partnerId: 'p',
    partnerReference: 'r',
    side: 'buy',
    fundingMode: 'debit_first',
    status: 'settled',
    kesAmount: '100.00',
    usdtAmount: '0.769230',
    rate: '130.0000',
    feeKes: '0.50',
    feeBps: 50,
    feeFlatKes: '0.00',
    feeCapKes: null,
    kesTotalAmount: '100.50',
    expiresAt: new Date('2026-11-28T03:00:00.123Z'),
    kesDebitStatus: 'debited',
    depositAddress: null,
    sendBefore: null,
    txHash: null,
    createdAt: new Date('2026-11-28T02:59:30.001Z'),
    walletId: null,
    paymentReference: null,
    paybill: null,
    beneficiaryName: null,
    payBefore: null,
    paymentRailReference: null,
    paymentBankTransactionId: null,
    paymentMatchedAt: null,
    ...amounts,
  };
}

/** What the view showed before stored text was kept as it is: every amount through big.js. */
function throughBigJs(order: OrderViewRecord) {
  const kes = (value: string) => formatAmount(new Big(value), 'KES');
  return {
    kesAmount: kes(order.kesAmount),
    usdtAmount: formatAmount(new Big(order.usdtAmount), 'USDT'),
    rate: formatDecimal(new Big(order.rate), RATE_SCALE),
    kesTotalAmount: kes(order.kesTotalAmount),
    fee: {
      kesAmount: kes(order.feeKes),
      flatKesAmount: kes(order.feeFlatKes),
      capKesAmount: order.feeCapKes && kes(order.feeCapKes),
    },
  };
}

describe('orderView amounts', () => {
  it('show stored text as big.js formats it, whatever shape the text has', () => {
    const texts = [
      ['100.00', '0.769230', '130.0000', '0.00'],
      ['100', '1', '130', '0'],
      ['100.5', '0.76923', '130.25', '0.5'],
      ['0.01', '0.000001', '0.0001', '0.01'],
      ['007.50', '00.500000', '0130.0000', '00.00'],
      ['999999999999999999.99', '999999999999999999.999999', '9999999999999999.9999', '1.10'],
      ['1e2', '1e-6', '1.3e2', '0e0'],
    ];
    for (const [kesAmount, usdtAmount, rate, fee] of texts) {
      const order = record({
        kesAmount,
        usdtAmount,
        rate,
        feeKes: fee,
        feeFlatKes: fee,
        feeCapKes: fee,
        kesTotalAmount: kesAmount,
      });
      const view = orderView(order);
      const expected = throughBigJs(order);
      expect({
        kesAmount: view.kesAmount,
        usdtAmount: view.usdtAmount,
        rate: view.rate,
        kesTotalAmount: view.kesTotalAmount,
        fee: {
          kesAmount: view.fee.kesAmount,
          flatKesAmount: view.fee.flatKesAmount,
          capKesAmount: view.fee.capKesAmount,
        },
      }).toEqual(expected);
      expect(orderEventData(order as OrderRecord, 'settled')).toMatchObject({
        kesAmount: expected.kesAmount,
        usdtAmount: expected.usdtAmount,
        rate: expected.rate,
      });
    }
    expect(orderView(record({ kesAmount: '007.50' })).kesAmount).toBe('7.50');
  });

  it('still refuses stored text with more decimals than the amount carries, as big.js refused it', () => {
    expect(() => orderView(record({ kesAmount: '100.001' }))).toThrow(RangeError);
    expect(() => orderView(record({ usdtAmount: '0.7692301' }))).toThrow(RangeError);
    expect(() => orderView(record({ rate: '130.00001' }))).toThrow(RangeError);
    expect(() => orderView(record({ kesAmount: 'abc' }))).toThrow();
  });
});
