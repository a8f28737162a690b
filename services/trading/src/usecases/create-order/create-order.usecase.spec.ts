// Proves the one creation path picks the funding strategy from the side and the partner's mode, runs every
// read-only refusal before the order transaction, funds only the order it created (never a replay), and that
// each strategy's compensation gives back exactly what the create took: a refused KES hold undoes the order
// (cap, order row, quote) in one transaction; a refused debit or USDT collection rejects the order and
// releases its cap. Fakes stand at the edges (repositories, ledger, bank); the use case and strategies are real.
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import type { KesDebitBank } from '../../adapters/bank/kes-debit-bank';
import type { OrderRecord } from '../../domain/order';
import type { QuoteRecord } from '../../persistence/quotes.repository';
import { CreateOrderUseCase } from './create-order.usecase';
import { DebitFirstFunding } from './debit-first.funding';
import { CreateOrderCommand, FundingStrategy, selectFunding } from './funding-strategy';
import { PayInFunding } from './pay-in.funding';
import { SellBalanceFunding, SellDepositFunding } from './sell.funding';

const PARTNER_ID = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const QUOTE_ID = '0b7e2c7e-5a43-4a43-8f1f-3f8e7c6b2a10';
const NOW = new Date('2026-11-26T10:00:00.000Z');
const logger = createLogger('test');
logger.silent = true;

const quote: QuoteRecord = {
  quoteId: QUOTE_ID,
  side: 'buy',
  kesAmount: '1000.00',
  usdtAmount: '7.692307',
  rate: '130.0000',
  feeKes: '10.00',
  feeBps: 100,
  feeFlatKes: '0.00',
  feeCapKes: null,
  kesTotalAmount: '1010.00',
  expiresAt: new Date(NOW.getTime() + 30_000),
};

const buy = (changes: Partial<CreateOrderCommand> = {}): CreateOrderCommand =>
  ({
    side: 'buy',
    partnerId: PARTNER_ID,
    quoteId: QUOTE_ID,
    partnerReference: 'ref-1',
    ...changes,
  }) as CreateOrderCommand;

/** The key of `buy()`'s request: an order found under it carries it. */
const underRef1 = { partnerId: PARTNER_ID, partnerReference: 'ref-1' };

/** A data source whose transactions run their work at once on a fake manager, counted. */
function fakeDataSource() {
  const transactions = { count: 0 };
  const dataSource = {
    manager: {},
    transaction: async (work: (manager: unknown) => Promise<unknown>) => {
      transactions.count += 1;
      return work({});
    },
  };
  return { dataSource: dataSource as unknown as DataSource, transactions };
}

function fakeTransitions() {
  return {
    record: jest.fn().mockImplementation(async (order: OrderRecord, transition: { changes: Partial<OrderRecord> }) => ({
      ...order,
      ...transition.changes,
    })),
    recordMany: jest
      .fn()
      .mockImplementation(async (orders: OrderRecord[], transition: { changes: Partial<OrderRecord> }) =>
        orders.map((order) => ({ ...order, ...transition.changes })),
      ),
  };
}

function strategyStub(side: 'buy' | 'sell', fundingMode: FundingStrategy['fundingMode']): jest.Mocked<FundingStrategy> {
  return {
    side,
    fundingMode,
    assertRequest: jest.fn(),
    assertAccounts: jest.fn(),
    assertBeforeCap: jest.fn().mockResolvedValue(undefined),
    prepare: jest.fn().mockResolvedValue({
      status: 'funds_reserved',
      kesDebitStatus: null,
      debitOutcome: null,
      depositAddress: null,
      sendBefore: null,
      payoutAccountId: null,
      nextActionAt: null,
    }),
    fund: jest.fn().mockImplementation(async (order: OrderRecord) => ({ order, refusalCode: null })),
  } as unknown as jest.Mocked<FundingStrategy>;
}

function creationPath(
  options: { buyMode?: 'debit_first' | 'pay_in'; twin?: OrderRecord | null; original?: OrderRecord } = {},
) {
  const { transactions } = fakeDataSource();
  const debitFirst = strategyStub('buy', 'debit_first');
  const payIn = strategyStub('buy', 'pay_in');
  const orders = {
    find: jest
      .fn()
      .mockImplementation(async (orderId: string) => (options.original?.orderId === orderId ? options.original : null)),
    place: jest
      .fn()
      .mockImplementation(async (order: OrderRecord) =>
        options.twin ? { outcome: 'replay', order: options.twin } : { outcome: 'placed', order },
      ),
  };
  const intake = {
    read: jest.fn().mockImplementation(async (_partnerId: string, quoteId: string | null) => ({
      quote: quoteId === QUOTE_ID ? quote : null,
      originalOrderId: options.original?.orderId ?? null,
      switches: { kill_switch: 'off', swaps: 'on', treasury_kes: 'available', treasury_usdt: 'available' },
      profile: {
        status: 'active',
        buyMode: options.buyMode ?? 'debit_first',
        sellMode: 'deposit',
        perOrderCapKes: '5000.00',
      },
    })),
  };
  const ledger = {
    getPartnerAccounts: jest.fn().mockResolvedValue({
      partnerId: PARTNER_ID,
      kesAccountId: 'kes-1',
      usdtAccountId: 'usdt-1',
      kesAccountStatus: 'active',
      usdtDepositAddress: '',
    }),
  };
  const useCase = new CreateOrderUseCase({
    intake,
    orders,
    ledger,
    accountIds: { remember: jest.fn() },
    clock: { now: () => NOW },
    strategies: [debitFirst, payIn, strategyStub('sell', 'deposit'), strategyStub('sell', 'balance')],
  });
  return { useCase, debitFirst, payIn, orders, intake, transactions, ledger };
}

describe('selecting the funding strategy', () => {
  const strategies = [
    strategyStub('buy', 'debit_first'),
    strategyStub('buy', 'pay_in'),
    strategyStub('sell', 'deposit'),
    strategyStub('sell', 'balance'),
  ];

  it.each([
    ['buy', { buyMode: 'debit_first', sellMode: 'balance' }, 'debit_first'],
    ['buy', { buyMode: 'pay_in', sellMode: 'deposit' }, 'pay_in'],
    ['sell', { buyMode: 'pay_in', sellMode: 'deposit' }, 'deposit'],
    ['sell', { buyMode: 'debit_first', sellMode: 'balance' }, 'balance'],
  ] as const)('a %s for a partner configured %o is funded %s', (side, profile, expected) => {
    const chosen = selectFunding(side, profile, strategies);
    expect([chosen.side, chosen.fundingMode]).toEqual([side, expected]);
  });

  it('fails loudly when no strategy serves the mode (a wiring bug, never a partner refusal)', () => {
    expect(() =>
      selectFunding('sell', { buyMode: 'debit_first', sellMode: 'balance' }, strategies.slice(0, 3)),
    ).toThrow('no funding strategy');
  });

  it('the creation path asks only the selected strategy, and inserts the order under its side and mode', async () => {
    const path = creationPath({ buyMode: 'pay_in' });
    const result = await path.useCase.execute(buy());
    expect(path.payIn.prepare).toHaveBeenCalledTimes(1);
    expect(path.payIn.fund).toHaveBeenCalledTimes(1);
    expect(path.debitFirst.prepare).not.toHaveBeenCalled();
    expect(result.order).toMatchObject({
      side: 'buy',
      fundingMode: 'pay_in',
      quoteId: QUOTE_ID,
      kesTotalAmount: '1010.00',
    });
    // The cap counts the KES principal (not the fee), at the clock's now, in the statement that places the order.
    expect(path.orders.place).toHaveBeenCalledWith(
      expect.objectContaining({ orderId: result.order.orderId, partnerReference: 'ref-1' }),
      '1000.00',
      NOW,
    );
    // The reads are one statement, and cap, quote and order another: no transaction of their own.
    expect(path.intake.read).toHaveBeenCalledWith(PARTNER_ID, QUOTE_ID, 'ref-1');
    expect(path.transactions.count).toBe(0);
  });

  it('a strategy refusing before the transaction leaves the cap, the quote and the orders untouched', async () => {
    const path = creationPath();
    path.debitFirst.prepare.mockRejectedValue(new AppError('INSUFFICIENT_KES_BALANCE'));
    await expect(path.useCase.execute(buy())).rejects.toMatchObject({ code: 'INSUFFICIENT_KES_BALANCE' });
    expect(path.orders.place).not.toHaveBeenCalled();
  });

  it('an order already made under the reference is read whole by id and answered, never placed or funded again', async () => {
    const original = { ...underRef1, orderId: 'original', refusalCode: 'KES_DEBIT_FAILED' } as OrderRecord;
    const path = creationPath({ original });
    await expect(path.useCase.execute(buy())).resolves.toEqual({ order: original, refusalCode: 'KES_DEBIT_FAILED' });
    expect(path.orders.find).toHaveBeenCalledWith('original');
    expect(path.orders.place).not.toHaveBeenCalled();
    expect(path.debitFirst.fund).not.toHaveBeenCalled();
  });

  it('a quote id that is not a uuid reads no quote and is refused as unknown', async () => {
    const path = creationPath();
    await expect(path.useCase.execute(buy({ quoteId: 'not-a-uuid' }))).rejects.toMatchObject({
      code: 'QUOTE_NOT_FOUND',
    });
    expect(path.intake.read).toHaveBeenCalledWith(PARTNER_ID, null, 'ref-1');
    expect(path.orders.place).not.toHaveBeenCalled();
  });

  it('a concurrent twin found under the reference lock is answered as the original and never funded again', async () => {
    const twin = { ...underRef1, orderId: 'twin', refusalCode: null } as OrderRecord;
    const path = creationPath({ twin });
    await expect(path.useCase.execute(buy())).resolves.toEqual({ order: twin, refusalCode: null });
    expect(path.debitFirst.fund).not.toHaveBeenCalled();
  });

  it.each([
    ['exceeded', 'ORDER_EXCEEDS_DAILY_CAP'],
    ['quote_unavailable', 'QUOTE_EXPIRED_OR_CONSUMED'],
    ['partner_not_found', 'PARTNER_NOT_FOUND'],
  ])('a placement refused as %s answers %s and funds nothing', async (outcome, code) => {
    const path = creationPath();
    path.orders.place.mockResolvedValue({ outcome, order: null });
    await expect(path.useCase.execute(buy())).rejects.toMatchObject({ code });
    expect(path.debitFirst.fund).not.toHaveBeenCalled();
  });
});

describe('idempotent on the partnerReference through claimIdempotently, with no round trip of its own', () => {
  it('a first request reads once and places once: no replay read, no second placement', async () => {
    const path = creationPath();
    await path.useCase.execute(buy());
    expect(path.intake.read).toHaveBeenCalledTimes(1);
    expect(path.orders.find).not.toHaveBeenCalled();
    expect(path.orders.place).toHaveBeenCalledTimes(1);
    expect(path.ledger.getPartnerAccounts).toHaveBeenCalledTimes(1);
    expect(path.debitFirst.fund).toHaveBeenCalledTimes(1);
  });

  it('a repeat whatever its quote and fields answers the original before any other refusal, reading nothing more', async () => {
    const original = { ...underRef1, orderId: 'original', quoteId: 'another-quote', refusalCode: null } as OrderRecord;
    const path = creationPath({ original });
    path.intake.read.mockImplementation(async () => ({
      quote: { ...quote, side: 'sell' },
      originalOrderId: 'original',
      switches: { kill_switch: 'on', swaps: 'off', treasury_kes: 'unavailable', treasury_usdt: 'available' },
      profile: null,
    }));
    await expect(path.useCase.execute(buy({ expectedUsdtAmount: '1.000000' }))).resolves.toEqual({
      order: original,
      refusalCode: null,
    });
    expect(path.ledger.getPartnerAccounts).not.toHaveBeenCalled();
    expect(path.debitFirst.prepare).not.toHaveBeenCalled();
    expect(path.orders.place).not.toHaveBeenCalled();
  });

  it('a placement that lost the key to a twin answers the twin it returned: one placement, no read of the twin', async () => {
    const twin = { ...underRef1, orderId: 'twin', refusalCode: null } as OrderRecord;
    const path = creationPath({ twin });
    await expect(path.useCase.execute(buy())).resolves.toEqual({ order: twin, refusalCode: null });
    expect(path.orders.place).toHaveBeenCalledTimes(1);
    expect(path.orders.find).not.toHaveBeenCalled();
    expect(path.intake.read).toHaveBeenCalledTimes(1);
    expect(path.debitFirst.prepare).toHaveBeenCalledTimes(1);
  });

  it('a twin gone between the intake read and its whole read is no repeat: the request is judged and placed', async () => {
    const path = creationPath();
    path.intake.read.mockImplementation(async () => ({
      quote,
      originalOrderId: 'undone-by-its-refused-hold',
      switches: { kill_switch: 'off', swaps: 'on', treasury_kes: 'available', treasury_usdt: 'available' },
      profile: { status: 'active', buyMode: 'debit_first', sellMode: 'deposit', perOrderCapKes: '5000.00' },
    }));
    const result = await path.useCase.execute(buy());
    expect(path.orders.find).toHaveBeenCalledWith('undone-by-its-refused-hold');
    expect(path.orders.place).toHaveBeenCalledTimes(1);
    expect(path.debitFirst.fund).toHaveBeenCalledWith(result.order, expect.anything());
  });

  it("never answers an order of another partner or reference as this request's original (refused, not replayed)", async () => {
    const foreign = { partnerId: 'another-partner', partnerReference: 'ref-1', orderId: 'foreign' } as OrderRecord;
    const path = creationPath({ twin: foreign });
    await expect(path.useCase.execute(buy())).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(path.debitFirst.fund).not.toHaveBeenCalled();
  });
});

describe("the real strategies refuse the other kind's request fields", () => {
  const payIn = new PayInFunding({
    ledger: {} as never,
    walletRegistry: {} as never,
    payWindowMs: 1,
    paymentPollMs: 1,
    usdtCustody: 'sandbox',
  });

  it('a debit-first partner may not send walletId or paymentRail; a pay-in partner must send a walletId', () => {
    const debitFirst = debitFirstFunding({}).strategy;
    expect(() => debitFirst.assertRequest(buy({ walletId: 'w', paymentRail: 'mobile_money' } as never))).toThrow(
      expect.objectContaining({ fields: ['walletId', 'paymentRail'] }),
    );
    expect(() => payIn.assertRequest(buy())).toThrow(expect.objectContaining({ fields: ['walletId'] }));
    expect(() => payIn.assertRequest(buy({ walletId: 'w', paymentRail: 'card' } as never))).toThrow(
      expect.objectContaining({ fields: ['paymentRail'] }),
    );
  });

  it('a balance-mode sell without a custodian is refused at the account checks; a deposit sell needs its address', () => {
    const deps = { ledger: {} as never, transitions: fakeTransitions(), clock: { now: () => NOW }, sendWindowMs: 1 };
    expect(() => new SellBalanceFunding(deps, 'none').assertAccounts()).toThrow(
      expect.objectContaining({ code: 'BRIDGE_NOT_CONFIGURED' }),
    );
    expect(() => new SellDepositFunding(deps).assertAccounts({ usdtDepositAddress: '' } as never)).toThrow(
      expect.objectContaining({ code: 'USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED' }),
    );
  });
});

const createdOrder = (changes: Partial<OrderRecord> = {}) =>
  ({
    orderId: 'order-1',
    partnerId: PARTNER_ID,
    quoteId: QUOTE_ID,
    side: 'buy',
    fundingMode: 'debit_first',
    status: 'funds_reserved',
    debitOutcome: 'pending',
    kesTotalAmount: '1010.00',
    usdtAmount: '7.692307',
    ...changes,
  }) as OrderRecord;
const intake = {
  command: buy(),
  quote,
  profile: {} as never,
  accounts: { kesAccountId: 'kes-1', usdtAccountId: 'usdt-1' } as never,
  orderId: 'order-1',
  now: NOW,
};

function debitFirstFunding(answers: { hold?: Error; debit?: 'accepted' | 'ambiguous' | 'refused' }) {
  const { dataSource, transactions } = fakeDataSource();
  const ledger = {
    getBalances: jest.fn(),
    placeHold: answers.hold ? jest.fn().mockRejectedValue(answers.hold) : jest.fn().mockResolvedValue({}),
    voidHold: jest.fn().mockResolvedValue({}),
  };
  const bank: KesDebitBank = { debit: jest.fn().mockResolvedValue(answers.debit ?? 'accepted'), lookup: jest.fn() };
  const undo = {
    capUsages: { release: jest.fn().mockResolvedValue(null) },
    orders: { delete: jest.fn() },
    quotes: { unconsume: jest.fn() },
  };
  const transitions = fakeTransitions();
  const strategy = new DebitFirstFunding({
    dataSource,
    ledger,
    bank,
    transitions,
    ...undo,
    clock: { now: () => NOW },
    logger,
    settlementDelayMs: 5_000,
    reconcileDelayMs: 10_000,
  });
  return { strategy, ledger, bank, undo, transitions, transactions };
}

describe('debit-first buy: the balance read with the accounts', () => {
  const withKesAvailable = (available: string) =>
    ({ ...intake, accounts: { ...intake.accounts, kesBalance: { currency: 'KES', available } } }) as never;

  it('judges the KES balance the accounts read brought, asking the ledger nothing more', async () => {
    const path = debitFirstFunding({});
    await expect(path.strategy.prepare(withKesAvailable('1010.00'))).resolves.toMatchObject({
      status: 'funds_reserved',
    });
    await expect(path.strategy.prepare(withKesAvailable('1009.99'))).rejects.toMatchObject({
      code: 'INSUFFICIENT_KES_BALANCE',
    });
    expect(path.ledger.getBalances).not.toHaveBeenCalled();
  });

  it('reads the balance on its own from a ledger that did not answer it, and an unreadable one refuses 503', async () => {
    const path = debitFirstFunding({});
    path.ledger.getBalances.mockResolvedValueOnce({ balances: [{ currency: 'KES', available: '5.00' }] });
    await expect(path.strategy.prepare(intake as never)).rejects.toMatchObject({ code: 'INSUFFICIENT_KES_BALANCE' });
    path.ledger.getBalances.mockRejectedValueOnce(new Error('unavailable'));
    await expect(path.strategy.prepare(intake as never)).rejects.toMatchObject({ code: 'KES_BALANCE_UNREADABLE' });
  });

  it('the creation path asks the accounts with the KES balance only for the strategy that reads it', async () => {
    const path = creationPath();
    Object.assign(path.debitFirst, { readsKesBalance: true });
    await path.useCase.execute(buy());
    expect(path.ledger.getPartnerAccounts).toHaveBeenCalledWith({ partnerId: PARTNER_ID, withKesBalance: true });
    const payInPath = creationPath({ buyMode: 'pay_in' });
    await payInPath.useCase.execute(buy());
    expect(payInPath.ledger.getPartnerAccounts).toHaveBeenCalledWith({ partnerId: PARTNER_ID, withKesBalance: false });
  });
});

describe('compensation: debit-first buy', () => {
  it('a hold refused for funds undoes the create in one transaction (cap, order, quote) and answers INSUFFICIENT_KES_BALANCE', async () => {
    const path = debitFirstFunding({ hold: new AppError('LEDGER_INSUFFICIENT_FUNDS') });
    await expect(path.strategy.fund(createdOrder(), intake)).rejects.toMatchObject({
      code: 'INSUFFICIENT_KES_BALANCE',
    });
    expect(path.undo.capUsages.release).toHaveBeenCalledWith(expect.anything(), 'order-1');
    expect(path.undo.orders.delete).toHaveBeenCalledWith(expect.anything(), 'order-1');
    expect(path.undo.quotes.unconsume).toHaveBeenCalledWith(expect.anything(), QUOTE_ID);
    expect(path.transactions.count).toBe(1);
    expect(path.bank.debit).not.toHaveBeenCalled();
  });

  it('any other hold failure leaves the order for the scheduler: nothing undone, the error surfaces', async () => {
    const path = debitFirstFunding({ hold: new Error('ledger unreachable') });
    await expect(path.strategy.fund(createdOrder(), intake)).rejects.toThrow('ledger unreachable');
    expect(path.undo.orders.delete).not.toHaveBeenCalled();
    expect(path.transitions.record).not.toHaveBeenCalled();
  });

  it('a refused debit voids the hold and rejects the order, giving its cap back; the quote stays consumed', async () => {
    const path = debitFirstFunding({ debit: 'refused' });
    const result = await path.strategy.fund(createdOrder(), intake);
    expect(result.refusalCode).toBe('KES_DEBIT_FAILED');
    expect(path.ledger.voidHold).toHaveBeenCalledWith({ holdId: 'order-1' });
    expect(path.transitions.record).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ releaseCap: true, changes: expect.objectContaining({ status: 'rejected' }) }),
    );
    expect(path.undo.quotes.unconsume).not.toHaveBeenCalled();
  });

  it('an ambiguous debit keeps the hold and the cap for reconciliation', async () => {
    const path = debitFirstFunding({ debit: 'ambiguous' });
    expect((await path.strategy.fund(createdOrder(), intake)).refusalCode).toBe('KES_DEBIT_AMBIGUOUS');
    expect(path.ledger.voidHold).not.toHaveBeenCalled();
    expect(path.transitions.record).toHaveBeenCalledWith(
      expect.anything(),
      expect.not.objectContaining({ releaseCap: true }),
    );
  });

  it('an accepted debit confirms the funds with its event, compare-and-set on the pending debit', async () => {
    const path = debitFirstFunding({ debit: 'accepted' });
    const result = await path.strategy.fund(createdOrder(), intake);
    expect(result.refusalCode).toBeNull();
    expect(result.order.debitOutcome).toBe('accepted');
    expect(path.transitions.recordMany).toHaveBeenCalledWith(
      [createdOrder()],
      expect.objectContaining({ fromDebitOutcome: 'pending', event: 'order.funds_confirmed' }),
    );
  });

  it('creates answered together are confirmed by one statement, each answered with its own order', async () => {
    const path = debitFirstFunding({ debit: 'accepted' });
    const orders = ['order-1', 'order-2', 'order-3'].map((orderId) => createdOrder({ orderId }));
    const results = await Promise.all(orders.map((order) => path.strategy.fund(order, intake)));
    expect(results.map((result) => result.order.orderId)).toEqual(['order-1', 'order-2', 'order-3']);
    expect(path.transitions.recordMany).toHaveBeenCalledTimes(1);
    expect(path.transitions.recordMany.mock.calls[0][0]).toHaveLength(3);
  });

  it('a confirmation the scheduler made first answers the order as it was read, not moved twice', async () => {
    const path = debitFirstFunding({ debit: 'accepted' });
    path.transitions.recordMany.mockResolvedValueOnce([]);
    const result = await path.strategy.fund(createdOrder(), intake);
    expect(result.order).toEqual(createdOrder());
  });
});

describe('compensation: balance-mode sell', () => {
  function balanceFunding(hold?: Error) {
    const ledger = {
      getPayoutDestination: jest.fn(),
      placeHold: hold ? jest.fn().mockRejectedValue(hold) : jest.fn().mockResolvedValue({}),
    };
    const transitions = fakeTransitions();
    return {
      strategy: new SellBalanceFunding({ ledger, transitions, clock: { now: () => NOW }, sendWindowMs: 1 }, 'sandbox'),
      ledger,
      transitions,
    };
  }
  const sellOrder = (usdtAmount: string) => createdOrder({ side: 'sell', fundingMode: 'balance', usdtAmount });

  it('a custody refusal rejects the order and gives its cap back without placing a hold', async () => {
    const path = balanceFunding();
    expect((await path.strategy.collect(sellOrder('5.000013'), 'usdt-1')).refusalCode).toBe('USDT_COLLECTION_FAILED');
    expect(path.ledger.placeHold).not.toHaveBeenCalled();
    expect(path.transitions.record).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ releaseCap: true, fromDebitOutcome: 'pending' }),
    );
  });

  it('a USDT hold refused for funds rejects the order INSUFFICIENT_USDT_BALANCE, cap given back', async () => {
    const path = balanceFunding(new AppError('LEDGER_INSUFFICIENT_FUNDS'));
    expect((await path.strategy.collect(sellOrder('5.000000'), 'usdt-1')).refusalCode).toBe(
      'INSUFFICIENT_USDT_BALANCE',
    );
    expect(path.transitions.record).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ releaseCap: true }),
    );
  });

  it('a collected order confirms its funds with the held amount', async () => {
    const path = balanceFunding();
    expect((await path.strategy.collect(sellOrder('5.000000'), 'usdt-1')).refusalCode).toBeNull();
    expect(path.transitions.record).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({
        event: 'order.funds_confirmed',
        changes: expect.objectContaining({ depositUsdtAmount: '5.000000' }),
      }),
    );
  });
});
