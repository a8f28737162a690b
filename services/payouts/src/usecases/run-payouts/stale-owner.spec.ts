// Proves what a step does when its owner stalled past its lease and another
// replica took the row (the row's timer no longer reads the stale owner's
// token): the stale owner may make the step's external call (the bank's
// submission, the custodian's send, the ledger's post or void), since those
// are made outside any transaction, but each is idempotent on a key stable per
// step, and its commit, fenced by the real HeldLeases fence, fails; the new
// owner makes the same call with the same key and commits once. Both owners
// share one sandbox bank and custodian (the real ones, counting the distinct
// references they were handed) and one ledger that resolves a hold exactly
// once by its id, as the ledger's PostHold and VoidHold do; the assertions are
// on distinct instructions, committed writes and balances, in both orders.
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { Big } from '@platform/money';
import { DataSource, EntityManager, HeldLeases, isLeaseLost, StepLease } from '@platform/persistence';
import type { BankTransferRequest } from '../../adapters/bank/bank';
import { SANDBOX_REJECTED_ACCOUNT_SUFFIX, SandboxBank } from '../../adapters/bank/sandbox-bank';
import type { ChainSendRequest } from '../../adapters/chain/chain-custodian';
import { SandboxChainCustodian } from '../../adapters/chain/sandbox-chain-custodian';
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
const STALE_TOKEN = 'claimed-by-the-stalled-replica';
const NEW_TOKEN = 'claimed-by-the-new-owner';

/** A ledger holding one pending hold of `amount` on the partner's account, resolved at most once by its id. */
function ledgerWith(amount: string) {
  const balances = new Map<string, Big>([
    ['partner.available', new Big(0)],
    ['partner.held', new Big(amount)],
  ]);
  const credit = (account: string, value: string) =>
    balances.set(account, (balances.get(account) ?? new Big(0)).plus(value));
  const hold = { status: 'pending' as 'pending' | 'posted' | 'voided', postedRequest: '' };
  const api = {
    async postHold(request: {
      holdId: string;
      postAmount: string;
      counterPostings: Array<{ accountId: string; amount: string }>;
    }) {
      const asText = JSON.stringify(request);
      if (hold.status === 'posted' && hold.postedRequest === asText) return hold; // the same post again: answered alike
      if (hold.status !== 'pending') throw new AppError('LEDGER_HOLD_ALREADY_RESOLVED');
      hold.status = 'posted';
      hold.postedRequest = asText;
      credit('partner.held', new Big(amount).neg().toString());
      credit('partner.available', new Big(amount).minus(request.postAmount).toString());
      for (const posting of request.counterPostings) credit(posting.accountId, posting.amount);
      return hold;
    },
    async voidHold() {
      if (hold.status === 'posted') throw new AppError('LEDGER_HOLD_ALREADY_RESOLVED');
      if (hold.status === 'voided') return hold;
      hold.status = 'voided';
      credit('partner.held', new Big(amount).neg().toString());
      credit('partner.available', amount);
      return hold;
    },
    async getHold() {
      return { status: hold.status };
    },
  };
  const balance = (account: string) => (balances.get(account) ?? new Big(0)).toFixed(2);
  return { api, hold, balance };
}

/** What both owners share: the leased row, the database's committed writes, the sandbox rails, the ledger, the cap. */
function world(holdAmount: string) {
  const row = { token: STALE_TOKEN };
  const committed: string[] = [];
  const manager = {
    query: async (sql: string, parameters: unknown[]) => {
      if (sql.startsWith('SELECT 1 AS held')) return parameters[1] === row.token ? [{ held: 1 }] : [];
      committed.push(sql.split(' ').slice(0, 3).join(' '));
      return [];
    },
  } as unknown as EntityManager;
  const dataSource = {
    manager,
    transaction: (work: (m: EntityManager) => Promise<unknown>) => work(manager),
  } as unknown as DataSource;
  const write =
    (name: string, answer: unknown = true) =>
    async () => {
      committed.push(name);
      return answer;
    };
  const bankReferences: string[] = [];
  const sandboxBank = new SandboxBank(0);
  const bank = {
    submit: (request: BankTransferRequest) => {
      bankReferences.push(request.reference);
      return sandboxBank.submit(request);
    },
    status: (request: { providerReference: string; submittedAt: Date }) => sandboxBank.status(request),
  };
  const chainReferences: string[] = [];
  const sandboxChain = new SandboxChainCustodian(0);
  const chain = {
    send: (request: ChainSendRequest) => {
      chainReferences.push(request.reference);
      return sandboxChain.send(request);
    },
    status: (request: { reference: string; submittedAt: Date }) => sandboxChain.status(request),
  };
  const capReleases: string[] = [];
  const trading = {
    releaseDailyCap: async ({ usageId }: { usageId: string }) => {
      capReleases.push(usageId);
    },
  } as unknown as TradingLimitsApi;
  const serviceAccounts = { id: async (kind: string) => kind } as unknown as ServiceAccounts;
  const ledger = ledgerWith(holdAmount);
  /** A replica's view of its claim: the lease under the token its claim wrote. */
  const leaseOn = (rows: PayoutInstructionsRepository['dueRows'], token: string): StepLease => {
    const leases = new HeldLeases(dataSource, rows, TIMING, logger);
    leases.hold(ID, token);
    leases.stop();
    return leases.stepLease(ID);
  };
  const distinct = (references: string[]) => new Set(references).size;
  return {
    row,
    committed,
    dataSource,
    write,
    bank,
    bankReferences,
    chain,
    chainReferences,
    distinct,
    trading,
    capReleases,
    serviceAccounts,
    ledger,
    leaseOn,
  };
}

type World = ReturnType<typeof world>;

function payoutSteps(w: World, accountNumber: string): PayoutSteps {
  const transfer = {
    transferId: ID,
    partnerId: ID,
    rail: 'mobile_money',
    accountNumber,
    accountName: 'Jane Wanjiru',
    bankCode: null,
    amountKes: '100.00',
    feeKes: '25.00',
    partnerReference: 'ref',
  } as unknown as TransferRecord;
  const instructions = {
    markSubmitted: w.write('instructions.markSubmitted'),
    complete: w.write('instructions.complete'),
    reschedule: w.write('instructions.reschedule'),
  } as unknown as PayoutInstructionsRepository;
  const transfers = {
    findById: async () => transfer,
    markOutcome: w.write('transfers.markOutcome'),
  } as unknown as TransfersRepository;
  const ledger = { ...w.ledger.api, getPayoutDestination: async () => ({}) } as unknown as LedgerApi;
  const transferOutcomes = new TransferOutcomes({
    dataSource: w.dataSource,
    transfers,
    instructions,
    ledger,
    trading: w.trading,
    serviceAccounts: w.serviceAccounts,
    logger,
  });
  return new PayoutSteps(
    { instructions, ledger, bank: w.bank as never, transferOutcomes, logger },
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
    submittedAt: status === 'submitted' ? new Date(0) : null,
  } as InstructionRecord;
}

function usdtSteps(w: World, walletActive: boolean): UsdtSendSteps {
  const sends = {
    markSubmitted: w.write('sends.markSubmitted'),
    reschedule: w.write('sends.reschedule'),
    decideFailure: w.write('sends.decideFailure'),
    markOutcome: w.write('sends.markOutcome'),
  } as unknown as UsdtSendsRepository;
  const walletRegistry = {
    getWalletStatus: async () => ({ active: walletActive, address: 'TXYZ' }),
  } as unknown as WalletRegistryApi;
  return new UsdtSendSteps({
    dataSource: w.dataSource,
    sends,
    confirmations: {} as ConfirmationsRepository,
    ledger: w.ledger.api as unknown as LedgerApi,
    trading: w.trading,
    walletRegistry,
    chain: w.chain,
    serviceAccounts: w.serviceAccounts,
    logger,
    statusPollMs: 1_000,
  });
}

function send(chainSubmittedAt: Date | null, decidedFailureReason: string | null = null): UsdtSendRecord {
  return {
    sendId: ID,
    partnerId: ID,
    destinationWalletId: ID,
    usdtAmount: '5.000000',
    status: 'confirmed',
    chainSubmittedAt,
    failureReason: null,
    decidedFailureReason,
  } as UsdtSendRecord;
}

const INSTRUCTIONS_ROWS = new PayoutInstructionsRepository({} as DataSource).dueRows;
const SENDS_ROWS = new UsdtSendsRepository().dueRows;
const ORDERS = ['the stale owner first', 'the new owner first'] as const;

/**
 * Runs `step` as the stalled owner (claimed under STALE_TOKEN, the row since
 * taken under NEW_TOKEN) and as the new owner, in `order`; the stale owner's
 * commit must fail as a lost lease. Answers what the new owner alone committed.
 */
async function staleAndNewOwner(
  w: World,
  rows: PayoutInstructionsRepository['dueRows'],
  order: (typeof ORDERS)[number],
  stale: (lease: StepLease) => Promise<void>,
  owner: (lease: StepLease) => Promise<void>,
): Promise<string[]> {
  const staleLease = w.leaseOn(rows, STALE_TOKEN);
  const ownerLease = w.leaseOn(rows, NEW_TOKEN);
  w.row.token = NEW_TOKEN;
  const runStale = async () => {
    const refused = await stale(staleLease).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isLeaseLost(refused)).toBe(true);
  };
  if (order === 'the stale owner first') await runStale();
  const before = w.committed.length;
  await owner(ownerLease);
  const ownerCommitted = w.committed.slice(before);
  if (order === 'the new owner first') await runStale();
  expect(w.committed).toEqual(ownerCommitted); // the stale owner committed nothing, in either order
  return ownerCommitted;
}

describe('a step whose lease passed to another replica', () => {
  it.each(ORDERS)('a transfer reaches the bank as one instruction (%s)', async (order) => {
    const w = world('125.00');
    const run = (lease: StepLease) => payoutSteps(w, '254712345678').run(instruction('pending'), lease);
    const committed = await staleAndNewOwner(w, INSTRUCTIONS_ROWS, order, run, run);
    expect(w.distinct(w.bankReferences)).toBe(1);
    expect(committed).toEqual(['instructions.markSubmitted']);
    expect(w.ledger.hold.status).toBe('pending');
  });

  it.each(ORDERS)('a hold the bank refused is voided once and the cap given back once (%s)', async (order) => {
    const w = world('125.00');
    const run = (lease: StepLease) =>
      payoutSteps(w, `25471234${SANDBOX_REJECTED_ACCOUNT_SUFFIX}`).run(instruction('pending'), lease);
    const committed = await staleAndNewOwner(w, INSTRUCTIONS_ROWS, order, run, run);
    expect(w.distinct(w.bankReferences)).toBe(1);
    expect(w.ledger.hold.status).toBe('voided');
    expect(w.ledger.balance('partner.available')).toBe('125.00');
    expect(w.ledger.balance('partner.held')).toBe('0.00');
    expect(w.distinct(w.capReleases)).toBe(1);
    expect(committed).toEqual(['instructions.complete', 'transfers.markOutcome', 'INSERT INTO outbox']);
  });

  it.each(ORDERS)('the hold of a transfer the bank settled is posted once (%s)', async (order) => {
    const w = world('125.00');
    const run = (lease: StepLease) => payoutSteps(w, '254712345678').run(instruction('submitted'), lease);
    const committed = await staleAndNewOwner(w, INSTRUCTIONS_ROWS, order, run, run);
    expect(w.ledger.hold.status).toBe('posted');
    expect(w.ledger.balance('partner.held')).toBe('0.00');
    expect(w.ledger.balance('partner.available')).toBe('0.00');
    expect(w.ledger.balance('bank_clearing')).toBe('100.00');
    expect(w.ledger.balance('fee_revenue')).toBe('25.00');
    expect(committed).toEqual(['instructions.complete', 'transfers.markOutcome', 'INSERT INTO outbox']);
  });

  it.each(ORDERS)('a USDT send reaches the custodian as one send (%s)', async (order) => {
    const w = world('5.00');
    const run = (lease: StepLease) => usdtSteps(w, true).run(send(null), lease);
    const committed = await staleAndNewOwner(w, SENDS_ROWS, order, run, run);
    expect(w.distinct(w.chainReferences)).toBe(1);
    expect(committed).toEqual(['sends.markSubmitted']);
    expect(w.ledger.hold.status).toBe('pending');
  });

  it.each(ORDERS)(
    'a stale owner that found the wallet inactive voids nothing while the new owner sends (%s)',
    async (order) => {
      const w = world('5.00');
      const committed = await staleAndNewOwner(
        w,
        SENDS_ROWS,
        order,
        (lease) => usdtSteps(w, false).run(send(null), lease),
        (lease) => usdtSteps(w, true).run(send(null), lease),
      );
      expect(committed).toEqual(['sends.markSubmitted']);
      expect(w.distinct(w.chainReferences)).toBe(1);
      expect(w.ledger.hold.status).toBe('pending'); // left for the chain's answer, not given back
      expect(w.capReleases).toEqual([]);
    },
  );

  it.each(ORDERS)('the hold of a USDT send the chain confirmed is posted once (%s)', async (order) => {
    const w = world('5.00');
    const run = (lease: StepLease) => usdtSteps(w, true).run(send(new Date(0)), lease);
    const committed = await staleAndNewOwner(w, SENDS_ROWS, order, run, run);
    expect(w.ledger.hold.status).toBe('posted');
    expect(w.ledger.balance('partner.held')).toBe('0.00');
    expect(w.ledger.balance('chain_clearing')).toBe('5.00');
    expect(committed).toEqual(['sends.markOutcome', 'INSERT INTO outbox']);
  });
});

describe('a USDT send whose wallet is no longer active', () => {
  it('has its failure committed before its hold is voided, and never reaches the custodian', async () => {
    const w = world('5.00');
    w.row.token = NEW_TOKEN;
    await usdtSteps(w, false).run(send(null), w.leaseOn(SENDS_ROWS, NEW_TOKEN));
    expect(w.committed).toEqual(['sends.decideFailure', 'sends.markOutcome', 'INSERT INTO outbox']);
    expect(w.chainReferences).toEqual([]);
    expect(w.ledger.hold.status).toBe('voided');
    expect(w.ledger.balance('partner.available')).toBe('5.00');
    expect(w.distinct(w.capReleases)).toBe(1);
  });

  it('is finished by the next owner from its decided failure, without asking the wallet or the custodian', async () => {
    const w = world('5.00');
    w.row.token = NEW_TOKEN;
    const steps = usdtSteps(w, true); // the wallet active again: the decision stands
    await steps.run(send(null, 'USDT_SEND_DESTINATION_NOT_ACTIVE'), w.leaseOn(SENDS_ROWS, NEW_TOKEN));
    expect(w.committed).toEqual(['sends.markOutcome', 'INSERT INTO outbox']);
    expect(w.chainReferences).toEqual([]);
    expect(w.ledger.hold.status).toBe('voided');
  });
});
