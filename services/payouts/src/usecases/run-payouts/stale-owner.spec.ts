// Proves that a step whose lease passed to another replica (its owner stalled
// past the lease without noticing: no renewal ran since) moves no money and
// sends nothing: the bank's submission, the chain's send and every ledger
// resolution of a hold (post or void, with the daily cap's release) happen
// inside the fenced transaction, so the real HeldLeases fence (the row's timer
// no longer reads this owner's token) refuses before any of them. The same
// steps under a lease still held do each once, as the control.
import type { Logger } from '@platform/logger';
import { DataSource, EntityManager, HeldLeases, isLeaseLost, StepLease } from '@platform/persistence';
import type { BankAdapter } from '../../adapters/bank/bank';
import type { ChainCustodian } from '../../adapters/chain/chain-custodian';
import type { LedgerApi, ServiceAccounts, TradingLimitsApi, WalletRegistryApi } from '../../adapters/peers/peers';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import { InstructionRecord, PayoutInstructionsRepository } from '../../persistence/payout-instructions.repository';
import type { TransferRecord, TransfersRepository } from '../../persistence/transfers.repository';
import { UsdtSendRecord, UsdtSendsRepository } from '../../persistence/usdt-sends.repository';
import { UsdtSendSteps } from '../run-usdt-sends/usdt-send-steps';
import { PayoutSteps } from './payout-steps';
import { TransferOutcomes } from './transfer-outcomes';

const logger = { info() {}, warn() {}, error() {}, child: () => logger } as unknown as Logger;
const ID = '11111111-1111-4111-8111-111111111111';
const TIMING = { leaseMs: 3_000, renewEveryMs: 1_000 };

/** One leased row: its timer (the token) and what reached the database and the peers. */
function world() {
  const effects: string[] = [];
  const row = { token: 'claimed-by-us' };
  const manager = {
    query: async (sql: string, parameters: unknown[]) => {
      if (sql.startsWith('SELECT 1 AS held')) return parameters[1] === row.token ? [{ held: 1 }] : [];
      effects.push(`sql: ${sql.split(' ').slice(0, 3).join(' ')}`);
      return [];
    },
  } as unknown as EntityManager;
  const dataSource = {
    manager,
    transaction: (work: (m: EntityManager) => Promise<unknown>) => work(manager),
  } as unknown as DataSource;
  const effect =
    (name: string, answer: unknown = {}) =>
    async () => {
      effects.push(name);
      return answer;
    };
  const ledger = {
    postHold: effect('ledger.postHold'),
    voidHold: effect('ledger.voidHold'),
    getHold: effect('ledger.getHold'),
    getPayoutDestination: effect('ledger.getPayoutDestination'),
  };
  const trading = { releaseDailyCap: effect('trading.releaseDailyCap') } as unknown as TradingLimitsApi;
  const serviceAccounts = { id: async () => 'service-account' } as unknown as ServiceAccounts;
  /** The step's view of its lease; `taken` moves the row's timer on, as another replica's claim does. */
  const leaseOn = (rows: PayoutInstructionsRepository['dueRows']): StepLease => {
    const leases = new HeldLeases(dataSource, rows, TIMING, logger);
    leases.hold(ID, row.token);
    leases.stop();
    return leases.stepLease(ID);
  };
  return { effects, row, dataSource, ledger, trading, serviceAccounts, effect, leaseOn };
}

type World = ReturnType<typeof world>;

function payoutSteps(w: World, bank: Partial<BankAdapter>): PayoutSteps {
  const transfer = {
    transferId: ID,
    partnerId: ID,
    rail: 'mobile_money',
    accountNumber: '254712345678',
    accountName: 'Jane Wanjiru',
    bankCode: null,
    amountKes: '100.00',
    feeKes: '25.00',
    partnerReference: 'ref',
  } as unknown as TransferRecord;
  const instructions = {
    markSubmitted: w.effect('instructions.markSubmitted'),
    complete: w.effect('instructions.complete'),
    reschedule: w.effect('instructions.reschedule'),
  } as unknown as PayoutInstructionsRepository;
  const transfers = {
    findById: async () => transfer,
    markOutcome: async () => {
      w.effects.push('transfers.markOutcome');
      return true;
    },
  } as unknown as TransfersRepository;
  const transferOutcomes = new TransferOutcomes({
    dataSource: w.dataSource,
    transfers,
    instructions,
    ledger: w.ledger as unknown as LedgerApi,
    trading: w.trading,
    serviceAccounts: w.serviceAccounts,
    logger,
  });
  return new PayoutSteps(
    {
      instructions,
      ledger: w.ledger as unknown as LedgerApi,
      bank: bank as BankAdapter,
      transferOutcomes,
      logger,
    },
    { statusPollMs: 1_000, stuckAfterMs: 60_000 },
  );
}

function instruction(status: InstructionRecord['status']): InstructionRecord {
  return {
    instructionId: ID,
    partnerId: ID,
    transferId: ID,
    amountKes: '100.00',
    status,
    providerReference: status === 'submitted' ? `SBX-${ID}` : null,
    submittedAt: status === 'submitted' ? new Date() : null,
  } as InstructionRecord;
}

function usdtSteps(w: World, walletActive: boolean): UsdtSendSteps {
  const sends = {
    markSubmitted: w.effect('sends.markSubmitted'),
    reschedule: w.effect('sends.reschedule'),
    markOutcome: async () => {
      w.effects.push('sends.markOutcome');
      return true;
    },
  } as unknown as UsdtSendsRepository;
  const walletRegistry = {
    getWalletStatus: async () => ({ active: walletActive, address: 'TXYZ' }),
  } as unknown as WalletRegistryApi;
  const chain: ChainCustodian = {
    send: async () => {
      w.effects.push('chain.send');
      return { outcome: 'accepted' } as Awaited<ReturnType<ChainCustodian['send']>>;
    },
    status: async () => ({ status: 'confirmed' }) as Awaited<ReturnType<ChainCustodian['status']>>,
  };
  return new UsdtSendSteps({
    dataSource: w.dataSource,
    sends,
    confirmations: {} as ConfirmationsRepository,
    ledger: w.ledger as unknown as LedgerApi,
    trading: w.trading,
    walletRegistry,
    chain,
    serviceAccounts: w.serviceAccounts,
    logger,
    statusPollMs: 1_000,
  });
}

function send(chainSubmittedAt: Date | null): UsdtSendRecord {
  return {
    sendId: ID,
    partnerId: ID,
    destinationWalletId: ID,
    usdtAmount: '5.000000',
    status: 'confirmed',
    chainSubmittedAt,
  } as UsdtSendRecord;
}

const INSTRUCTIONS_ROWS = new PayoutInstructionsRepository({} as DataSource).dueRows;
const SENDS_ROWS = new UsdtSendsRepository().dueRows;

/** Runs `step` as the stale owner (the row taken) and as the owner still holding it. */
async function asStaleAndAsOwner(
  rows: PayoutInstructionsRepository['dueRows'],
  step: (w: World, lease: StepLease) => Promise<void>,
): Promise<{ stale: string[]; owner: string[] }> {
  const stale = world();
  const staleLease = stale.leaseOn(rows);
  stale.row.token = 'claimed-by-the-other-replica';
  const refused = await step(stale, staleLease).catch((error: unknown) => error);
  expect(isLeaseLost(refused)).toBe(true);
  const owner = world();
  await step(owner, owner.leaseOn(rows));
  return { stale: stale.effects, owner: owner.effects };
}

describe('a step whose lease passed to another replica', () => {
  it('does not submit a transfer to the bank', async () => {
    const bank = (w: World) => ({
      submit: async () => {
        w.effects.push('bank.submit');
        return { outcome: 'accepted' as const, providerReference: `SBX-${ID}` };
      },
    });
    const { stale, owner } = await asStaleAndAsOwner(INSTRUCTIONS_ROWS, (w, lease) =>
      payoutSteps(w, bank(w)).run(instruction('pending'), lease),
    );
    expect(stale).toEqual([]);
    expect(owner).toEqual(['bank.submit', 'instructions.markSubmitted']);
  });

  it('neither voids a hold the bank refused nor gives the daily cap back', async () => {
    const bank = (w: World) => ({
      submit: async () => {
        w.effects.push('bank.submit');
        return { outcome: 'rejected' as const, failureCode: 'PROVIDER_REJECTED' };
      },
    });
    const { stale, owner } = await asStaleAndAsOwner(INSTRUCTIONS_ROWS, (w, lease) =>
      payoutSteps(w, bank(w)).run(instruction('pending'), lease),
    );
    expect(stale).toEqual([]);
    expect(owner).toEqual([
      'bank.submit',
      'ledger.voidHold',
      'trading.releaseDailyCap',
      'instructions.complete',
      'transfers.markOutcome',
      'sql: INSERT INTO outbox',
    ]);
  });

  it('does not post the hold of a transfer the bank settled', async () => {
    const bank = { status: async () => ({ status: 'settled' as const }) };
    const { stale, owner } = await asStaleAndAsOwner(INSTRUCTIONS_ROWS, (w, lease) =>
      payoutSteps(w, bank).run(instruction('submitted'), lease),
    );
    expect(stale).toEqual([]);
    expect(owner).toEqual([
      'ledger.postHold',
      'instructions.complete',
      'transfers.markOutcome',
      'sql: INSERT INTO outbox',
    ]);
  });

  it('does not hand a USDT send to the chain', async () => {
    const { stale, owner } = await asStaleAndAsOwner(SENDS_ROWS, (w, lease) =>
      usdtSteps(w, true).run(send(null), lease),
    );
    expect(stale).toEqual([]);
    expect(owner).toEqual(['chain.send', 'sends.markSubmitted']);
  });

  it('does not void the hold of a USDT send whose wallet it found inactive (the new owner may have sent it)', async () => {
    const { stale, owner } = await asStaleAndAsOwner(SENDS_ROWS, (w, lease) =>
      usdtSteps(w, false).run(send(null), lease),
    );
    expect(stale).toEqual([]);
    expect(owner).toEqual([
      'ledger.voidHold',
      'trading.releaseDailyCap',
      'sends.markOutcome',
      'sql: INSERT INTO outbox',
    ]);
  });

  it('does not post the hold of a USDT send the chain confirmed', async () => {
    const { stale, owner } = await asStaleAndAsOwner(SENDS_ROWS, (w, lease) =>
      usdtSteps(w, true).run(send(new Date()), lease),
    );
    expect(stale).toEqual([]);
    expect(owner).toEqual(['ledger.postHold', 'sends.markOutcome', 'sql: INSERT INTO outbox']);
  });
});
