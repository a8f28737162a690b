// Proves that a transfer key whose first attempt died with a dependency is
// answered definitively within 5 s of that dependency being ready again, not
// after the abandoned attempt's lease (TRANSFER_CREATE_LEASE_MS, 3 s after its
// owner's last renewal).
// Every trading replica is SIGKILLed while 12 transfer creates (distinct keys,
// 100 ms apart) run: the creates it catches fail on ReserveDailyCap and cannot
// undo it (trading is gone), so their `creating` rows stay. Each such row must
// be released by its owner at once (due now: no longer renewed), which is checked
// before trading comes back. Trading is then started; at the moment it is
// ready every key is repeated twice at once (twins), each twin retried until
// it is answered definitively (anything but a 503). Then:
// - every twin answers 202 within 5 s of trading being ready (asserted, the
//   figure logged), and both twins of a key name the same transfer (one result);
// - exactly one transfer row per key, and every pending hold is a current
//   transfer's (no hold of an abandoned attempt left beside its retry's);
// - each transfer confirms and settles (one made before the kill may have
//   expired meanwhile, its code living 10 s); money is whole (money-support.ts), the
//   balance is the funding less what settled, the ledger reconciles.
// Runs in the serial `faults` project, alone.
import { randomUUID } from 'node:crypto';
import { stackInfra } from '@platform/testing';
import { sleep } from '../test/support';
import { expectCleanAnswers, killAmong, killStand } from './kill-support';
import {
  attempt,
  Attempt,
  codeFor,
  expectLedgerReconciles,
  expectSubjectBalancesMatch,
  expectSubjectsWhole,
  PayingPartner,
  payingPartner,
  statusOf,
  subjectsTerminated,
  transferBody,
} from './money-support';

const ATTEMPTS = 12;
/** Trading dies once this many transfers are whole: the others are in flight or start after. */
const COMMITTED_BEFORE_KILL = 2;
const TRANSFER_KES = '100.00';
const FUNDING_KES = '5000.00';
const FUNDING_USDT = '10.000000';
const DAILY_CAP_KES = '100000.00';
/** The bound required and asserted: a definitive answer this soon after trading is ready. */
const DEFINITIVE_ANSWER_MS_MAX = 5_000;
/** The test stack's create lease (scripts/test.mjs; the service's default). */
const LEASE_MS = Number(process.env.STACK_ENV_TRANSFER_CREATE_LEASE_MS ?? '3000');
/** How long creates still running at payouts (the gateway gave up on them) may take to end on trading's absence. */
const RELEASE_WAIT_MS = 20_000;
const RELEASE_POLL_MS = 200;
/** A repeat still answered 503 is tried again this soon (a partner's retry). */
const REPEAT_PAUSE_MS = 100;
/** Bound on the retries of one twin, well past the bound asserted, so a failure reports the time it took. */
const REPEAT_GIVE_UP_MS = 30_000;
const FAULT_TEST_TIMEOUT_MS = 180_000;

interface Twin {
  answer: Attempt;
  elapsedMs: number;
}

const stand = killStand();

const COMMITTED_SQL =
  "SELECT count(*)::int AS n FROM transfers WHERE partner_id = $1 AND status = 'awaiting_confirmation'";
/**
 * The partner's `creating` rows; `released` when the owner gave its claim up: a live owner
 * keeps its claim's timer ahead (renewed every second), a release makes it due now, and
 * nothing claims it while trading is gone (the schedulers' gate is closed).
 */
const CREATING_SQL = `SELECT idempotency_key AS key, extract(epoch FROM created_at) * 1000 AS "claimedAtMs",
  next_action_at <= clock_timestamp() AS released
  FROM transfers WHERE partner_id = $1 AND status = 'creating'`;

interface CreatingRow {
  key: string;
  claimedAtMs: number;
  released: boolean;
}

describe('a transfer whose create died with trading', () => {
  it(
    'is answered definitively within 5 s of trading being ready, once for concurrent repeats, with one hold',
    async () => {
      const p = await payingPartner(FUNDING_KES, FUNDING_USDT, DAILY_CAP_KES);
      const keys = Array.from({ length: ATTEMPTS }, (_, index) => `abandoned-${randomUUID()}-${index}`);
      const create = (index: number) =>
        attempt(() => p.http.post('/v1/transfers', transferBody('254712345678', TRANSFER_KES, keys[index])));

      const answers = await killAmong(
        'trading',
        ATTEMPTS,
        create,
        async () => (await stand.pools.payouts.query(COMMITTED_SQL, [p.partner.partnerId])).rows[0].n,
        COMMITTED_BEFORE_KILL,
      );
      expectCleanAnswers(answers, 'trading', [202]);
      // A loaded payouts may still run creates the gateway gave up on: each ends on trading's absence.
      const creating = await abandonedCreates(p);
      console.log(`trading killed: ${creating.length} create(s) abandoned`);
      // The kill caught creates after their claim, and each gave its claim up at once.
      expect(creating.length).toBeGreaterThan(0);
      expect(creating.filter((row) => !row.released).map((row) => row.key)).toEqual([]);

      await stackInfra.startServices();
      const readyAtMs = Date.now();
      const twins = await Promise.all(
        keys.map((_, index) => Promise.all([repeat(create, index), repeat(create, index)])),
      );
      const slowest = Math.max(...twins.flat().map((twin) => twin.elapsedMs));
      const firstLeaseEndsMs = Math.min(...creating.map((row) => Number(row.claimedAtMs) + LEASE_MS)) - readyAtMs;
      console.log(
        `trading ready: every key definitive in ${slowest} ms (required ${DEFINITIVE_ANSWER_MS_MAX} ms; ` +
          `${twins.flat().filter((twin) => twin.elapsedMs > DEFINITIVE_ANSWER_MS_MAX).length} of ${twins.flat().length} repeats over it); ` +
          `the first abandoned lease would have ended at ${Math.round(firstLeaseEndsMs)} ms`,
      );

      expect(
        twins.flatMap((pair, index) =>
          pair.map((twin) => ({
            index,
            status: statusOf(twin.answer),
            late: twin.elapsedMs > DEFINITIVE_ANSWER_MS_MAX,
          })),
        ),
      ).toEqual(keys.flatMap((_, index) => [0, 1].map(() => ({ index, status: '202', late: false }))));
      const ids = twins.map((pair) => pair.map((twin) => ('failed' in twin.answer ? null : twin.answer.body.id)));
      expect(ids.filter(([first, second]) => first !== second)).toEqual([]);
      const transferIds = ids.map(([id]) => id as string);
      for (const [index, answer] of answers.entries())
        if (!('failed' in answer) && answer.status === 202) expect(transferIds[index]).toBe(answer.body.id);

      await expectOneRowPerKey(p, keys, transferIds);
      await expectPendingHoldsOnlyOfTransfers(p, transferIds);
      const finals = await confirmEach(
        p,
        twins.map(([twin]) => twin.answer),
        answers.map((answer) => !('failed' in answer) && answer.status === 202),
      );
      const subjects = await subjectsTerminated(stand.pools, p.partner.partnerId);
      const statusById = Object.fromEntries(subjects.map((subject) => [subject.id, subject.status]));
      expect(transferIds.map((id) => statusById[id])).toEqual(finals);
      await expectSubjectsWhole(stand.pools, p.partner.partnerId, subjects, DAILY_CAP_KES);
      await expectSubjectBalancesMatch(p.http, FUNDING_KES, FUNDING_USDT, subjects);
      await expectLedgerReconciles(stand.pools);
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

/**
 * The partner's abandoned creates once none is running any more (every one released), or as
 * they stand after RELEASE_WAIT_MS for the assertion to name the unreleased.
 */
async function abandonedCreates(p: PayingPartner): Promise<CreatingRow[]> {
  const read = async () => (await stand.pools.payouts.query(CREATING_SQL, [p.partner.partnerId])).rows as CreatingRow[];
  const startedAtMs = Date.now();
  let rows = await read();
  while (rows.some((row) => !row.released) && Date.now() - startedAtMs < RELEASE_WAIT_MS) {
    await sleep(RELEASE_POLL_MS);
    rows = await read();
  }
  return rows;
}

/** Repeats the key's create until it is answered definitively (not a 503, not a lost connection). */
async function repeat(create: (index: number) => Promise<Attempt>, index: number): Promise<Twin> {
  const startedAtMs = Date.now();
  for (;;) {
    const answer = await create(index);
    const elapsedMs = Date.now() - startedAtMs;
    const definitive = !('failed' in answer) && answer.status !== 503;
    if (definitive || elapsedMs > REPEAT_GIVE_UP_MS) return { answer, elapsedMs };
    await sleep(REPEAT_PAUSE_MS);
  }
}

/** Exactly one transfer row per key (an abandoned attempt's row is gone), and it is the one answered. */
async function expectOneRowPerKey(p: PayingPartner, keys: string[], transferIds: string[]): Promise<void> {
  const { rows } = await stand.pools.payouts.query(
    'SELECT idempotency_key AS key, transfer_id AS id FROM transfers WHERE partner_id = $1',
    [p.partner.partnerId],
  );
  const idByKey = Object.fromEntries(rows.map((row) => [row.key, row.id]));
  expect(rows.length).toBe(keys.length);
  expect(keys.map((key) => idByKey[key])).toEqual(transferIds);
}

/** Every hold still pending is a current transfer's (its id): no abandoned attempt's hold stayed beside its retry's. */
async function expectPendingHoldsOnlyOfTransfers(p: PayingPartner, transferIds: string[]): Promise<void> {
  const { rows } = await stand.pools.ledger.query(
    "SELECT h.id FROM holds h JOIN accounts a ON a.id = h.account_id WHERE a.partner_id = $1 AND h.status = 'pending'",
    [p.partner.partnerId],
  );
  expect(rows.map((row) => row.id).filter((id) => !transferIds.includes(id))).toEqual([]);
}

/**
 * Confirms each transfer with its code; answers each one's final status. A
 * transfer made before the kill has a code that lives 10 s on the test stack,
 * which a slow restart may outlast: expiry is its correct end then (its hold
 * and cap are checked as given back).
 */
async function confirmEach(p: PayingPartner, accepted: Attempt[], madeBeforeKill: boolean[]): Promise<string[]> {
  const finals: string[] = [];
  for (const [index, answer] of accepted.entries()) {
    if ('failed' in answer) throw new Error(`key ${index} was not accepted`);
    const confirmed = await p.http.post(`/v1/confirmations/${answer.body.confirmation.id}`, {
      code: await codeFor(p.http, answer.body.id),
    });
    if (madeBeforeKill[index] && confirmed.status === 409 && confirmed.body.message === 'CONFIRMATION_EXPIRED') {
      finals.push('expired');
      continue;
    }
    expect({ index, status: confirmed.status }).toEqual({ index, status: 200 });
    finals.push('settled');
  }
  return finals;
}
