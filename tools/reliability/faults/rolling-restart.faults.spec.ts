// Proves `npm run restart -- <service>` (scripts/stack.mjs restart, here against
// the test stack) replaces every replica of that service, one at a time, and
// touches no other service: each of its replicas runs under a new process and
// answers SERVING, every other service keeps its processes. Runs in the serial
// `faults` project, alone.
//
// With one replica (the default `npm test`) the restarted service is away while
// it restarts, so partners do notice: only trading is restarted, under reads,
// and only the process replacement is asserted (a few seconds of the suite).
//
// With two or more replicas (STACK_REPLICAS=2 npm test) the eight services are
// restarted in turn (gateway, trading, ledger, payouts, webhook-delivery,
// wallet-registry, collections, notifier) under sustained mixed load from one
// partner: reads (balances, orders), quotes and buys, confirmed KES transfers,
// confirmed USDT sends, and repeats of earlier creates with the same
// partnerReference or idempotencyKey, which must return the same resource.
// It proves the restarts invisible to partners: no answer is a 5xx, no
// connection fails, no answer is a refusal other than the few a loaded machine
// may give whatever restarts (a quote lapsed, a stale rate, a code lapsed).
// Then every order, transfer and send ends; each one's money is whole (holds,
// cap usages: money-support.ts); both balances equal the funding less what
// settled, and each account's posted balance is the sum of its postings; `ops
// ledger check` passes; and every subject's final event reaches the partner's
// webhook, with no delivery left pending or dead. The figures of each restart
// (requests, errors, p99) are printed for docs/operations.md.
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import {
  createTestPartner,
  HttpResult,
  HttpsReceiver,
  loadTestStack,
  PartnerHttpClient,
  recordSensitive,
  runOps,
  setPartnerWebhook,
  startHttpsReceiver,
  waitFor,
} from '@platform/testing';
import { sleep } from '../test/support';
import {
  endPools,
  expectSubjectBalancesMatch,
  expectSubjectsWhole,
  minorUnits,
  MoneyPools,
  moneyPools,
  PayingPartner,
  payingPartner,
  Subject,
  subjectsTerminated,
  transferBody,
} from './money-support';

const REPO_ROOT = join(__dirname, '..', '..', '..');
/** The restart builds the one service (turbo, mostly from cache), migrates it, and drains and starts each replica. */
const RESTART_TIMEOUT_MS = 180_000;
const READERS = 3;
const WRITERS = 2;
const READ_PAUSE_MS = 20;
const WRITE_PAUSE_MS = 50;
const READS = ['/v1/balances', '/v1/orders'] as const;
const PARTNER_REQUESTS_PER_MINUTE = 50_000;
const FAULT_TEST_TIMEOUT_MS = 2 * RESTART_TIMEOUT_MS + 60_000;
/** In the order an operator rolls a release out: the partner edge first, the leaves last. */
const ROLLING_ORDER = [
  'gateway',
  'trading',
  'ledger',
  'payouts',
  'webhook-delivery',
  'wallet-registry',
  'collections',
  'notifier',
] as const;
const ORDER_KES = '100.00';
const TRANSFER_KES = '10.00';
const SEND_USDT = '1.000000';
/** Far more than the load can spend in eight restarts: no refusal for want of money or cap. */
const FUNDING_KES = '5000000.00';
const FUNDING_USDT = '100000.000000';
const DAILY_CAP_KES = '10000000.00';
/** A mobile-money number the sandbox bank pays. */
const PAID_ACCOUNT = '254712345678';
/**
 * Refusals a loaded machine may give whatever restarts, after which nothing moved: a quote
 * that lapsed (5 s on the test stack) before its order, a rate older than the 3 s staleness
 * limit for a send's cap valuation, a code (10 s) that lapsed before it was read and sent.
 */
const LOAD_REFUSALS = ['QUOTE_EXPIRED_OR_CONSUMED', 'ORDER_DAILY_CAP_RATE_UNAVAILABLE', 'CONFIRMATION_EXPIRED'];
const CODE_WAIT_MS = 30_000;
const CODE_POLL_MS = 200;
const EVENTS_WAIT_MS = 120_000;
const EVENTS_POLL_MS = 500;
const FINAL_CHECKS_TIMEOUT_MS = 300_000;

const replicaCount = Math.min(...ROLLING_ORDER.map((service) => loadTestStack().replicas?.[service]?.length ?? 1));

type Outcome = 'answered' | 'server error' | 'connection error' | 'unexpected';

/** One partner request: what it was, during which restart (or `steady`), how long it took, how it ended. */
interface Sample {
  phase: string;
  what: string;
  durationMs: number;
  outcome: Outcome;
  detail: string;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

function stackScript(args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'scripts', 'stack.mjs'), ...args],
      { cwd: REPO_ROOT, env: { ...process.env, STACK_PROFILE: 'test' }, timeout: timeoutMs },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`stack.mjs ${args.join(' ')} failed: ${stderr || stdout || error.message}`))
          : resolve(stdout),
    );
  });
}

const restart = (service: string) => stackScript(['restart', service], RESTART_TIMEOUT_MS);

type ReplicaStatus = { replica: number; pid: number | null; running: boolean };
const statusJson = async (): Promise<Record<string, ReplicaStatus[]>> =>
  JSON.parse(await stackScript(['status', '--json'], 60_000)).services;

/**
 * Partner traffic in loops until stopped: READERS loops of reads and WRITERS loops of
 * creates. Every request is one Sample, labelled with the phase it was sent in.
 */
class PartnerLoad {
  phase = 'steady';
  readonly samples: Sample[] = [];
  /** Every create accepted, by the key that repeats it, with the id it answered. */
  readonly accepted = new Map<string, { id: string; repeat: () => Promise<HttpResult | null> }>();
  readonly repeatMismatches: string[] = [];
  private stopped = false;
  private running: Promise<void> | null = null;

  constructor(private readonly p: PayingPartner) {}

  start(withWrites: boolean): void {
    const readers = Array.from({ length: READERS }, (_, index) => this.readLoop(index));
    const writers = withWrites ? Array.from({ length: WRITERS }, (_, index) => this.writeLoop(index)) : [];
    this.running = Promise.all([...readers, ...writers]).then(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** Sends one request and records it; null when it failed at the transport or was refused unexpectedly. */
  async send(what: string, call: () => Promise<HttpResult>, accepted: number[]): Promise<HttpResult | null> {
    const phase = this.phase;
    const sentAtMs = Date.now();
    const record = (outcome: Outcome, detail: string) =>
      this.samples.push({ phase, what, durationMs: Date.now() - sentAtMs, outcome, detail });
    try {
      const answer = await call();
      if (answer.status >= 500) record('server error', `${what} ${answer.status} ${answer.text.slice(0, 160)}`);
      else if (accepted.includes(answer.status)) record('answered', '');
      else if (LOAD_REFUSALS.includes(answer.body?.message)) record('answered', answer.body.message);
      else record('unexpected', `${what} ${answer.status} ${answer.text.slice(0, 160)}`);
      return accepted.includes(answer.status) ? answer : null;
    } catch (error) {
      const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
      record(
        'connection error',
        `${what} ${(error as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''} at ${new Date().toISOString()}`,
      );
      return null;
    }
  }

  private async readLoop(index: number): Promise<void> {
    for (let read = index; !this.stopped; read += 1) {
      const path = READS[read % READS.length];
      await this.send(`GET ${path}`, () => this.p.http.get(path), [200]);
      await sleep(READ_PAUSE_MS);
    }
  }

  private async writeLoop(writer: number): Promise<void> {
    const kinds = [
      (n: string) => this.buy(`rr-buy-${n}`),
      (n: string) => this.transfer(`rr-transfer-${n}`),
      (n: string) => this.usdtSend(`rr-send-${n}`),
      () => this.repeatOne(),
    ];
    for (let operation = 0; !this.stopped; operation += 1) {
      await kinds[operation % kinds.length](`${writer}-${operation}`);
      await sleep(WRITE_PAUSE_MS);
    }
  }

  /** A fresh quote, then the buy; the same reference later must return the same order. */
  private async buy(reference: string): Promise<void> {
    const order = await this.placeBuy(reference);
    if (order) this.accepted.set(reference, { id: order.body.orderId, repeat: () => this.placeBuy(reference) });
  }

  private async placeBuy(reference: string): Promise<HttpResult | null> {
    const quote = await this.send(
      'POST /v1/quotes',
      () => this.p.http.post('/v1/quotes', { side: 'buy', kesAmount: ORDER_KES }),
      [201],
    );
    if (!quote) return null;
    const body = { quoteId: quote.body.quoteId, partnerReference: reference };
    return this.send('POST /v1/orders/buy', () => this.p.http.post('/v1/orders/buy', body), [202]);
  }

  private transfer(key: string): Promise<void> {
    return this.createAndConfirm('/v1/transfers', key, transferBody(PAID_ACCOUNT, TRANSFER_KES, key));
  }

  private usdtSend(key: string): Promise<void> {
    return this.createAndConfirm('/v1/usdt/sends', key, {
      destinationWalletId: this.p.walletId,
      usdtAmount: SEND_USDT,
      idempotencyKey: key,
    });
  }

  private async createAndConfirm(path: string, key: string, body: Record<string, unknown>): Promise<void> {
    const create = () => this.send(`POST ${path}`, () => this.p.http.post(path, body), [202]);
    const created = await create();
    if (!created) return;
    this.accepted.set(key, { id: created.body.id, repeat: create });
    const code = await this.codeFor(created.body.id);
    if (!code) return;
    const confirmationPath = `/v1/confirmations/${created.body.confirmation.id}`;
    await this.send(`POST /v1/confirmations`, () => this.p.http.post(confirmationPath, { code }), [200]);
  }

  /** The subject's code from the sandbox outbox (recorded for the log scan); null when it never came. */
  private async codeFor(subjectId: string): Promise<string | null> {
    const deadline = Date.now() + CODE_WAIT_MS;
    while (Date.now() < deadline) {
      const outbox = await this.send('GET /v1/sandbox/outbox', () => this.p.http.get('/v1/sandbox/outbox'), [200]);
      const entry = (outbox?.body as Array<{ subjectId: string; code: string | null }> | undefined)?.find(
        (candidate) => candidate.subjectId === subjectId,
      );
      if (entry?.code) {
        recordSensitive(entry.code);
        return entry.code;
      }
      await sleep(CODE_POLL_MS);
    }
    this.samples.push({
      phase: this.phase,
      what: 'code',
      durationMs: CODE_WAIT_MS,
      outcome: 'unexpected',
      detail: `no code for ${subjectId}`,
    });
    return null;
  }

  /** Repeats the create of the newest accepted key: the same resource must come back. */
  private async repeatOne(): Promise<void> {
    const newest = [...this.accepted.entries()].at(-1);
    if (!newest) return;
    const [key, { id, repeat }] = newest;
    const answer = await repeat();
    const answeredId = answer?.body.orderId ?? answer?.body.id;
    if (answer && answeredId !== id) this.repeatMismatches.push(`${key}: first ${id}, repeated ${answeredId}`);
  }
}

/** The figures of one phase: requests, 5xx, connection errors, unexpected refusals, p99. */
function figures(samples: Sample[], phase: string) {
  const inPhase = samples.filter((sample) => sample.phase === phase);
  const of = (outcome: Outcome) => inPhase.filter((sample) => sample.outcome === outcome);
  return {
    phase,
    requests: inPhase.length,
    writes: inPhase.filter((sample) => sample.what.startsWith('POST')).length,
    serverErrors: of('server error').map((sample) => sample.detail),
    connectionErrors: of('connection error').map((sample) => sample.detail),
    unexpected: of('unexpected').map((sample) => sample.detail),
    p99Ms: percentile(
      inPhase.map((sample) => sample.durationMs),
      0.99,
    ),
  };
}

/** Restarts `service` and checks that its replicas, and only they, run new processes. */
async function restartAndCheckReplacement(service: string): Promise<void> {
  const replicas = loadTestStack().replicas?.[service]?.length ?? 1;
  const before = await statusJson();
  expect(before[service].filter((replica) => replica.running)).toHaveLength(replicas);
  const output = await restart(service);
  const after = await statusJson();
  expect(output).toContain(`${service} stopped and started`);
  for (const [index, replica] of after[service].entries()) {
    expect({ replica: replica.replica, running: replica.running }).toEqual({ replica: replica.replica, running: true });
    expect(replica.pid).not.toBe(before[service][index].pid);
  }
  for (const other of Object.keys(before).filter((name) => name !== service)) {
    expect({ other, pids: after[other].map((replica) => replica.pid) }).toEqual({
      other,
      pids: before[other].map((replica) => replica.pid),
    });
  }
}

(replicaCount < 2 ? describe : describe.skip)('npm run restart -- trading (one replica)', () => {
  it(
    'replaces its process and leaves the other services alone',
    async () => {
      const partner = await createTestPartner({ rateLimitPerMinute: PARTNER_REQUESTS_PER_MINUTE });
      const load = new PartnerLoad({ partner, http: new PartnerHttpClient(partner), walletId: '' });
      load.start(false);
      await restartAndCheckReplacement('trading').finally(() => load.stop());
      // Trading is away while its only replica restarts: answers may fail, but some came.
      expect(load.samples.filter((sample) => sample.outcome === 'answered').length).toBeGreaterThan(0);
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

(replicaCount >= 2 ? describe : describe.skip)('a rolling restart of all eight services under mixed load', () => {
  let pools: MoneyPools;
  let receiver: HttpsReceiver;
  let p: PayingPartner;
  let load: PartnerLoad;
  const loadAverages: Record<string, string> = {};

  beforeAll(async () => {
    pools = moneyPools();
    receiver = await startHttpsReceiver();
    p = await payingPartner(FUNDING_KES, FUNDING_USDT, DAILY_CAP_KES);
    await setPartnerWebhook(p.partner.partnerId, receiver.url);
    load = new PartnerLoad(p);
    load.start(true);
  }, FAULT_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await load?.stop();
    await receiver?.close();
    await endPools(pools);
  });

  it.each(ROLLING_ORDER)(
    'npm run restart -- %s: every replica replaced, no partner notices',
    async (service) => {
      load.phase = service;
      await restartAndCheckReplacement(service).finally(() => {
        load.phase = 'steady';
      });
      loadAverages[service] = loadavg()
        .map((value) => value.toFixed(1))
        .join(' ');
      const phase = figures(load.samples, service);
      console.log(
        `${service} restarted (${replicaCount} replicas): ${phase.requests} requests (${phase.writes} writes), ` +
          `${phase.serverErrors.length} 5xx, ${phase.connectionErrors.length} connection errors, ` +
          `p99 ${phase.p99Ms} ms, load average ${loadAverages[service]}`,
      );
      expect(phase.writes).toBeGreaterThan(0);
      expect({ serverErrors: phase.serverErrors, connectionErrors: phase.connectionErrors }).toEqual({
        serverErrors: [],
        connectionErrors: [],
      });
      expect(phase.unexpected).toEqual([]);
    },
    FAULT_TEST_TIMEOUT_MS,
  );

  it(
    'leaves every resource ended and whole, the balances exact, the ledger checked and every event delivered',
    async () => {
      await load.stop();
      const steady = figures(load.samples, 'steady');
      console.log(
        `rolling restart figures (${replicaCount} replicas):\n` +
          [...ROLLING_ORDER.map((service) => figures(load.samples, service)), steady]
            .map(
              (row) =>
                `| ${row.phase} | ${row.requests} | ${row.writes} | ${row.serverErrors.length} | ` +
                `${row.connectionErrors.length} | ${row.p99Ms} | ${loadAverages[row.phase] ?? ''} |`,
            )
            .join('\n'),
      );
      // Every request of the run, including those a restart's end caught in flight: answered.
      const notAnswered = load.samples.filter((sample) => sample.outcome !== 'answered');
      expect(notAnswered.map((sample) => `${sample.phase}: ${sample.outcome}: ${sample.detail}`)).toEqual([]);
      expect(load.repeatMismatches).toEqual([]);
      const subjects = await subjectsTerminated(pools, p.partner.partnerId);
      console.log(`rolling restart: ${subjects.length} orders, transfers and sends, all ended`);
      expect(subjects.length).toBeGreaterThan(0);
      await expectSubjectsWhole(pools, p.partner.partnerId, subjects, DAILY_CAP_KES);
      await expectSubjectBalancesMatch(p.http, FUNDING_KES, FUNDING_USDT, subjects);
      await expectPostedIsSumOfPostings(pools, p.partner.partnerId);
      const check = await runOps<{ checks: Array<{ name?: string; ok: boolean }> }>(['ledger', 'check']);
      expect(check.checks.filter((entry) => !entry.ok)).toEqual([]);
      await expectEveryEventDelivered(pools, receiver, p.partner.partnerId, subjects);
    },
    FINAL_CHECKS_TIMEOUT_MS,
  );
});

/** Each of the partner's accounts: its posted balance is the sum of its postings. */
async function expectPostedIsSumOfPostings(pools: MoneyPools, partnerId: string): Promise<void> {
  const { rows } = await pools.ledger.query(
    `SELECT a.currency, a.posted::text AS posted, COALESCE(SUM(p.amount), 0)::text AS summed
       FROM accounts a LEFT JOIN postings p ON p.account_id = a.id
      WHERE a.partner_id = $1 GROUP BY a.id, a.currency, a.posted`,
    [partnerId],
  );
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows)
    expect({ currency: row.currency, posted: minorUnits(row.posted, 6) }).toEqual({
      currency: row.currency,
      posted: minorUnits(row.summed, 6),
    });
}

/** The event a subject's final status fires (a lapsed code fires confirmation.expired). */
function finalEventType(subject: Subject): string {
  if (subject.kind === 'order') return `order.${subject.status}`;
  if (subject.status === 'expired') return 'confirmation.expired';
  return `${subject.kind}.${subject.status}`;
}

/** Every subject's final event reached the receiver, and no delivery of the partner is left pending or dead. */
async function expectEveryEventDelivered(
  pools: MoneyPools,
  receiver: HttpsReceiver,
  partnerId: string,
  subjects: Subject[],
): Promise<void> {
  const missing = () => {
    const seen = new Set(
      receiver.requests.map((request) => {
        const event = JSON.parse(request.body);
        const data = event.data ?? {};
        return `${event.type} ${data.orderId ?? data.transferId ?? data.sendId ?? data.subjectId ?? ''}`;
      }),
    );
    return subjects.map((subject) => `${finalEventType(subject)} ${subject.id}`).filter((event) => !seen.has(event));
  };
  await waitFor(() => missing().length === 0, {
    timeoutMs: EVENTS_WAIT_MS,
    intervalMs: EVENTS_POLL_MS,
    what: 'every final event',
  }).catch(() => undefined);
  expect(missing()).toEqual([]);
  const undelivered = async () =>
    (
      await pools.webhooks.query(
        `SELECT delivery_id, event_type, status FROM webhook_deliveries WHERE partner_id = $1 AND status <> 'delivered'`,
        [partnerId],
      )
    ).rows;
  await waitFor(async () => (await undelivered()).length === 0, {
    timeoutMs: EVENTS_WAIT_MS,
    intervalMs: EVENTS_POLL_MS,
    what: 'every delivery delivered',
  }).catch(() => undefined);
  expect(await undelivered()).toEqual([]);
}
