/** Proves the pay-in buy shape on the wire: instructions and reference always, kesDebit and the payment block only once present. */
import type { trading } from '@platform/proto';
import { presentOrder } from './order-presenters';

const base: trading.Order = {
  orderId: '7f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
  partnerReference: 'r',
  side: 'buy',
  fundingMode: 'pay_in',
  status: 'awaiting_payment',
  kesAmount: '1000.00',
  usdtAmount: '7.692307',
  rate: '130.0000',
  kesTotalAmount: '1005.00',
  fee: { kesAmount: '5.00', percentBps: 50, flatKesAmount: '0.00' },
  expiresAt: '2026-01-01T10:00:00.000Z',
  createdAt: '2026-01-01T09:59:00.000Z',
  walletId: '0b7f7c1e-2d3a-4c5b-8e9f-a0b1c2d3e4f5',
  paymentReference: '912345678901',
  paymentInstructions: {
    rail: 'mobile_money_paybill',
    paybill: '600100',
    payTo: '600100',
    beneficiaryName: 'Sandbox Payments',
    reference: '912345678901',
    kesAmount: '1005.00',
    currency: 'KES',
    payBefore: '2026-01-01T10:29:00.000Z',
    instructions: 'Pay.',
  },
};

describe('presentOrder (pay-in buy)', () => {
  it('shows the instructions, reference, wallet and payBefore while awaiting payment, without kesDebit or payment', () => {
    const wire = presentOrder(base);
    expect(wire).toMatchObject({
      status: 'awaiting_payment',
      walletId: base.walletId,
      paymentReference: '912345678901',
      payBefore: '2026-01-01T10:29:00.000Z',
      paymentInstructions: { ...base.paymentInstructions },
    });
    expect(wire).not.toHaveProperty('kesDebit');
    expect(wire).not.toHaveProperty('payment');
  });

  it('adds kesDebit and the payment block once matched', () => {
    const payment = {
      railReference: 'SBXABCDEF0123',
      bankTransactionId: 'SBX-1',
      matchedAt: '2026-01-01T10:01:00.000Z',
    };
    const wire = presentOrder({ ...base, status: 'settled', kesDebit: { status: 'debited' }, payment });
    expect(wire).toMatchObject({ kesDebit: { status: 'debited' }, payment });
  });

  it('refuses a pay-in order without its instructions (a bug upstream)', () => {
    expect(() => presentOrder({ ...base, paymentInstructions: undefined })).toThrow();
  });
});
