// Proves the hold half of the USDT deposit policy, which trading's real answer ("none" when no sell order
// waits for a deposit) does not reach by itself. A second ledger replica runs against the stack's own svc_ledger, with
// its trading peer played by a gRPC server this test controls: a "hold" answer books the deposit to
// suspense (the balance unchanged, no event) and the sweeper credits it with one usdt_credit.received
// once the window passes; a claim before then attributes it to one order only (a second order is refused,
// the same claim returns it) and it is never credited; trading not answering holds the deposit for the
// short window instead of crediting on a guess. The ledger balances after each.
import { randomBytes, randomUUID } from 'node:crypto';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { AppError } from '@platform/errors';
import { Big } from '@platform/money';
import { checkHealth, createGrpcServer, GrpcServer, PromiseClient } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { ledger, trading } from '@platform/proto';
import {
  createTestPartner,
  HttpsReceiver,
  loadTestStack,
  routedClient,
  serviceEnvironment,
  stackIdentity,
  startHttpsReceiver,
  TestPartner,
  waitFor,
  setPartnerWebhook,
} from '@platform/testing';
import { LEDGER_ACCESS } from '../src/grpc/access';
import { codeOf, expectLedgerBalanced, ledgerPool } from './ledger-support';

const logger = createLogger('ledger-deposit-holds-test', 'error');
const REPO_ROOT = join(__dirname, '..', '..', '..');
// Ports of this test's own processes: 23000-23999, offset by the test stack slot so parallel stacks differ.
const PORT_BASE = 23_000 + Number(process.env.TEST_STACK_SLOT ?? 0) * 100;
const FAKE_TRADING_PORT = PORT_BASE + 71;
const REPLICA_GRPC_PORT = PORT_BASE + 72;
const REPLICA_START_TIMEOUT_MS = 30_000;
const HEALTH_PROBE_TIMEOUT_MS = 1_000;
const UNAVAILABLE_HOLD_MS = 2_000;
const SHORT_HOLD_MS = 2_000;
const LONG_HOLD_MS = 120_000;
const WEBHOOK_WAIT_MS = 30_000;

type Answer = trading.OfferUsdtDepositResponse | 'fail';

describe('USDT deposits held for attribution', () => {
  let fakeTrading: GrpcServer;
  let replica: ChildProcess;
  let client: PromiseClient<typeof ledger.LedgerService>;
  let sandbox: PromiseClient<typeof ledger.LedgerSandboxService>;
  let pool: Pool;
  let partner: TestPartner;
  let receiver: HttpsReceiver;
  let nextAnswer: Answer = { decision: 'none' };

  beforeAll(async () => {
    // Plays trading, with trading's certificate: the replica accepts no other identity as trading.
    fakeTrading = createGrpcServer(logger, stackIdentity('trading'));
    fakeTrading.add(
      trading.TradingDepositsService,
      {
        async offerUsdtDeposit() {
          if (nextAnswer === 'fail') throw new AppError('SERVICE_UNAVAILABLE');
          return nextAnswer;
        },
      },
      { offerUsdtDeposit: ['ledger'] },
    );
    await fakeTrading.listen(FAKE_TRADING_PORT, '127.0.0.1');
    replica = startReplica();
    const address = `127.0.0.1:${REPLICA_GRPC_PORT}`;
    const health = stackIdentity('ops').client('ledger');
    await waitFor(() => checkHealth(address, HEALTH_PROBE_TIMEOUT_MS, health), {
      timeoutMs: REPLICA_START_TIMEOUT_MS,
      what: 'the ledger replica to serve',
    });
    client = routedClient(ledger.LedgerService, LEDGER_ACCESS.LEDGER, { upstream: 'ledger', address, logger });
    sandbox = routedClient(ledger.LedgerSandboxService, LEDGER_ACCESS.LEDGER_SANDBOX, {
      upstream: 'ledger',
      address,
      logger,
    });
    pool = ledgerPool();
    partner = await createTestPartner();
    receiver = await startHttpsReceiver();
    await setPartnerWebhook(partner.partnerId, receiver.url);
  });

  afterEach(() => expectLedgerBalanced(pool));

  afterAll(async () => {
    client?.close();
    sandbox?.close();
    await stopReplica(replica);
    await fakeTrading?.shutdown(1_000);
    await receiver?.close();
    await pool?.end();
  });

  function startReplica(): ChildProcess {
    const stack = loadTestStack();
    const { TLS_CA_FILE, TLS_CERT_FILE, TLS_KEY_FILE } = serviceEnvironment('ledger');
    return spawn(process.execPath, [join(REPO_ROOT, 'services/ledger/dist/main.js')], {
      env: {
        PATH: process.env.PATH,
        PLATFORM_MODE: 'sandbox',
        TLS_CA_FILE,
        TLS_CERT_FILE,
        TLS_KEY_FILE,
        LOG_LEVEL: 'error',
        DATABASE_URL: stack.databases.ledger,
        AMQP_URL: stack.amqpUrl,
        GRPC_PORT: String(REPLICA_GRPC_PORT),
        TRADING_GRPC_ADDR: `127.0.0.1:${FAKE_TRADING_PORT}`,
        DEPOSIT_HOLD_WHEN_TRADING_UNAVAILABLE_MS: String(UNAVAILABLE_HOLD_MS),
        HOLD_SWEEP_INTERVAL_MS: '250',
      },
      stdio: 'ignore',
    });
  }

  async function stopReplica(child: ChildProcess | undefined): Promise<void> {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  const usdtAvailable = async () => {
    const { balances } = await client.getBalances({ partnerId: partner.partnerId });
    return balances.find((balance) => balance.currency === 'USDT')!.available;
  };

  const deposit = (txHash: string, usdtAmount: string) =>
    sandbox.simulateUsdtDeposit({ partnerId: partner.partnerId, txHash, usdtAmount });
  const webhooksFor = (activityId: string) => receiver.requests.filter((request) => request.body.includes(activityId));

  it('holds a deposit in suspense for its window, then credits it with one event', async () => {
    const before = await usdtAvailable();
    nextAnswer = { decision: 'hold', holdUntil: new Date(Date.now() + SHORT_HOLD_MS).toISOString() };
    const txHash = randomBytes(32).toString('hex');
    const held = await deposit(txHash, '42.000001');
    expect(held).toMatchObject({
      status: 'held_for_attribution',
      usdtAmount: '42.000001',
      partnerId: partner.partnerId,
    });
    expect(held.holdUntil).toBeDefined();
    expect(await usdtAvailable()).toBe(before);
    expect(await deposit(txHash, '42.000001')).toEqual(held);

    const credited = await waitFor(
      async () => {
        const rows = await pool.query("SELECT status FROM usdt_deposits WHERE tx_hash = $1 AND status = 'credited'", [
          txHash,
        ]);
        return rows.rowCount === 1 || undefined;
      },
      { timeoutMs: 15_000, what: 'the held deposit to be credited' },
    );
    expect(credited).toBe(true);
    expect(await usdtAvailable()).toBe(new Big(before).plus('42.000001').toFixed(6));
    await waitFor(() => webhooksFor(held.depositId).length > 0 || undefined, {
      timeoutMs: WEBHOOK_WAIT_MS,
      what: 'usdt_credit.received',
    });
    const body = JSON.parse(webhooksFor(held.depositId)[0].body);
    expect(body).toMatchObject({
      type: 'usdt_credit.received',
      data: { activityId: held.depositId, amount: { currency: 'USDT', value: '42.000001' } },
    });
    expect(await codeOf(client.claimUsdtDeposit({ txHash, partnerId: partner.partnerId, orderId: randomUUID() }))).toBe(
      'LEDGER_DEPOSIT_NOT_CLAIMABLE',
    );
  });

  it('lets exactly one order claim a held deposit, which is then never credited to the balance', async () => {
    nextAnswer = { decision: 'hold', holdUntil: new Date(Date.now() + LONG_HOLD_MS).toISOString() };
    const txHash = randomBytes(32).toString('hex');
    const before = await usdtAvailable();
    await deposit(txHash, '5.5');
    const orders = [randomUUID(), randomUUID(), randomUUID()];
    const outcomes = await Promise.allSettled(
      orders.map((orderId) => client.claimUsdtDeposit({ txHash, partnerId: partner.partnerId, orderId })),
    );
    const won = outcomes.filter(
      (outcome) => outcome.status === 'fulfilled',
    ) as PromiseFulfilledResult<ledger.UsdtDeposit>[];
    expect(won).toHaveLength(1);
    const claim = won[0].value;
    expect(claim).toMatchObject({ status: 'claimed' });
    expect(await client.claimUsdtDeposit({ txHash, partnerId: partner.partnerId, orderId: claim.orderId! })).toEqual(
      claim,
    );
    expect(await usdtAvailable()).toBe(before);
    const suspense = await pool.query('SELECT status, hold_until FROM usdt_deposits WHERE tx_hash = $1', [txHash]);
    expect(suspense.rows).toEqual([{ status: 'claimed', hold_until: null }]);
  });

  it('holds for the short window when trading does not answer, then credits the balance', async () => {
    nextAnswer = 'fail';
    const txHash = randomBytes(32).toString('hex');
    const held = await deposit(txHash, '1.25');
    expect(held.status).toBe('held_for_attribution');
    expect(Date.parse(held.holdUntil!) - Date.now()).toBeLessThanOrEqual(UNAVAILABLE_HOLD_MS);
    await waitFor(
      async () => {
        const rows = await pool.query("SELECT 1 FROM usdt_deposits WHERE tx_hash = $1 AND status = 'credited'", [
          txHash,
        ]);
        return rows.rowCount === 1 || undefined;
      },
      { timeoutMs: 15_000, what: 'the deposit held for an unavailable trading to be credited' },
    );
    await waitFor(() => webhooksFor(held.depositId).length > 0 || undefined, {
      timeoutMs: WEBHOOK_WAIT_MS,
      what: 'usdt_credit.received',
    });
    expect(webhooksFor(held.depositId)).toHaveLength(1);
  });
});
