// Proves that SIGKILL of payouts in the middle of transfer and USDT-send creates
// (the create saga: key claimed by a `creating` row, checks, ReserveDailyCap,
// PlaceHold, code sent inside the transaction that makes it visible) leaves no
// half-made transfer or send and no money held or reserved for one.
// 16 creates (14 KES transfers, 2 USDT sends; distinct idempotency keys) start
// 100 ms apart; payouts is killed once two of them are committed, then restarted.
// - Every answer while it was down is 202 or a clean 503 envelope (the gateway
//   stays up and maps the lost upstream to SERVICE_UNAVAILABLE).
// - Retrying every key with the same body answers 202: the transfer or send
//   answered before the kill (same id), or a fresh one once a create the kill
//   caught midway was undone by the scheduler (TRANSFER_CREATE_LEASE_MS, 15 s
//   on the test stack; until then the key answers 503). Each accepted answer is
//   `awaiting_confirmation` and is confirmed at once with the newest outbox code
//   for it (codes live 10 s on the test stack, less than the lease wait).
// - Each key then has exactly one row, the one answered; everything settles;
//   money is whole (money-support.ts): one posted hold and one kept cap usage per
//   subject, an abandoned create leaves at most a voided hold and a released
//   usage of its id, nothing held; KES = funding − 14 × (100.00 + 25.00) and
//   USDT = funding − 2 × 5.000000; the ledger reconciles; exactly one
//   transfer.settled / usdt_send.settled event id per subject reaches the
//   partner's webhook (payouts' outbox relay resumed).
// Runs in the serial `faults` project, alone.
import { randomUUID } from 'node:crypto';
import { stackInfra, waitFor, setPartnerWebhook } from '@platform/testing';
import { sleep } from '../test/support';
import { expectCleanAnswers, killAmong, killStand, RECOVERY_POLL_MS, RECOVERY_TIMEOUT_MS } from './kill-support';
import {
  attempt,
  Attempt,
  codeFor,
  expectLedgerReconciles,
  expectSubjectBalancesMatch,
  expectSubjectsWhole,
  minorUnits,
  PayingPartner,
  payingPartner,
  subjectsTerminated,
  transferBody,
} from './money-support';

/** A create takes ~100 ms on a quiet stack and the kill ~1 s to land, so 16 (1.5 s of starts) leave some in flight. */
const ATTEMPTS = 16;
/** These attempts are USDT sends; the others KES transfers. */
const SEND_INDEXES = new Set([4, 11]);
/** The kill comes once this many are committed: some whole before it, the rest in flight or after. */
const COMMITTED_BEFORE_KILL = 2;
const TRANSFER_KES = '100.00';
/** The test stack's flat transfer fee (TRANSFER_FEE_FLAT_KES default). */
const TRANSFER_FEE_KES = '25.00';
const SEND_USDT = '5.000000';
const FUNDING_KES = '5000.00';
const FUNDING_USDT = '100.000000';
const DAILY_CAP_KES = '100000.00';
const WEBHOOK_WAIT_MS = 60_000;
/** Time a second, unwanted settled event would have had to arrive. */
const DUPLICATE_GRACE_MS = 2_000;
const FAULT_TEST_TIMEOUT_MS = 240_000;

interface Accepted {
  id: string;
  status: string;
  createdAt: string;
  confirmation: { id: string };
}
/** How a key's subject ends: settled, or expired when payouts was down for longer than its code lived. */
interface Outcome {
  subject: Accepted;
  final: 'settled' | 'expired';
}

const stand = killStand();

const COMMITTED_SQL = `SELECT (SELECT count(*) FROM transfers WHERE partner_id = $1 AND status = 'awaiting_confirmation')
  + (SELECT count(*) FROM usdt_sends WHERE partner_id = $1 AND status = 'awaiting_confirmation') AS n`;

describe('payouts killed with SIGKILL while transfers and USDT sends are created', () => {
  it(
    'answers each key once with one subject that confirms and settles once, with nothing held or reserved for abandoned creates',
    async () => {
      const p = await payingPartner(FUNDING_KES, FUNDING_USDT, DAILY_CAP_KES);
      await setPartnerWebhook(p.partner.partnerId, stand.receiver.url);
      const keys = Array.from({ length: ATTEMPTS }, (_, index) => `kill-payouts-${randomUUID()}-${index}`);
      const create = (index: number) =>
        attempt(() =>
          SEND_INDEXES.has(index)
            ? p.http.post('/v1/usdt/sends', {
                destinationWalletId: p.walletId,
                usdtAmount: SEND_USDT,
                idempotencyKey: keys[index],
              })
            : p.http.post('/v1/transfers', transferBody('254712345678', TRANSFER_KES, keys[index])),
        );
      const answers = await killAmong(
        'payouts',
        ATTEMPTS,
        create,
        async () => Number((await stand.pools.payouts.query(COMMITTED_SQL, [p.partner.partnerId])).rows[0].n),
        COMMITTED_BEFORE_KILL,
      );
      expectCleanAnswers(answers, 'payouts', [202]);
      await stackInfra.startServices();
      const restartedAtMs = Date.now();

      // Every key at once: an answer from before the kill has a code that lapses 10 s after its create.
      const accepted = await Promise.all(
        keys.map((_, index) => acceptAndConfirm(p, index, () => create(index), answers[index], restartedAtMs)),
      );
      await expectOneRowPerKey(
        p,
        keys,
        accepted.map((outcome) => outcome.subject),
      );

      const subjects = await subjectsTerminated(stand.pools, p.partner.partnerId);
      const kindOf = (index: number) => (SEND_INDEXES.has(index) ? 'usdt_send' : 'transfer');
      expect(subjects.map((subject) => `${subject.kind} ${subject.status}`).sort()).toEqual(
        accepted.map((outcome, index) => `${kindOf(index)} ${outcome.final}`).sort(),
      );
      await expectSubjectsWhole(stand.pools, p.partner.partnerId, subjects, DAILY_CAP_KES);
      await logAbandonedCreates(
        p,
        subjects.map((subject) => subject.id),
      );
      console.log(
        `payouts killed: ${accepted.filter((outcome) => outcome.final === 'expired').length} subject(s) outlived by the outage expired`,
      );
      await expectSubjectBalancesMatch(p.http, FUNDING_KES, FUNDING_USDT, subjects);
      const transferDebitMinor = minorUnits(TRANSFER_KES, 2) + minorUnits(TRANSFER_FEE_KES, 2);
      const settled = subjects.filter((subject) => subject.status === 'settled');
      expect(
        settled.filter(
          (subject) => subject.kind === 'transfer' && minorUnits(subject.kesDebit, 2) !== transferDebitMinor,
        ),
      ).toEqual([]);
      expect(
        settled.filter(
          (subject) => subject.kind === 'usdt_send' && minorUnits(subject.usdtDebit, 6) !== minorUnits(SEND_USDT, 6),
        ),
      ).toEqual([]);
      await expectLedgerReconciles(stand.pools);
      await expectOneSettledEach(
        accepted.map(({ subject, final }, index) => ({
          id: subject.id,
          type: final === 'expired' ? 'confirmation.expired' : `${kindOf(index)}.settled`,
        })),
      );
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

/**
 * Retries one key until it is accepted (a create the kill caught answers 503
 * until the scheduler undoes it after the lease), checks it is the subject
 * answered before the kill if there was one, and confirms it with its code.
 */
async function acceptAndConfirm(
  p: PayingPartner,
  index: number,
  create: () => Promise<Attempt>,
  before: Attempt,
  restartedAtMs: number,
): Promise<Outcome> {
  const answer = await waitFor(
    async () => {
      const result = await create();
      return !('failed' in result) && result.status === 202 ? result : undefined;
    },
    { timeoutMs: RECOVERY_TIMEOUT_MS, intervalMs: RECOVERY_POLL_MS, what: `key ${index} accepted after the restart` },
  );
  const subject = answer.body as Accepted;
  const answeredBefore = !('failed' in before) && before.status === 202;
  if (answeredBefore) expect({ index, id: subject.id }).toEqual({ index, id: before.body.id });
  // A subject committed before payouts came back (answered 202 before the kill, or committed
  // by a create whose answer the kill lost) has a code that lives 10 s on the test stack: a
  // slow restart may outlast it. Expiry is then the correct outcome (its hold and cap are
  // checked as given back below); anything else must confirm.
  const mayHaveLapsed = answeredBefore || Date.parse(subject.createdAt) < restartedAtMs;
  if (mayHaveLapsed && subject.status === 'expired') return { subject, final: 'expired' };
  expect({ index, status: subject.status }).toEqual({ index, status: 'awaiting_confirmation' });
  const confirmed = await p.http.post(`/v1/confirmations/${subject.confirmation.id}`, {
    code: await codeFor(p.http, subject.id),
  });
  if (mayHaveLapsed && confirmed.status === 409 && confirmed.body.message === 'CONFIRMATION_EXPIRED')
    return { subject, final: 'expired' };
  expect({ index, subject: subject.id, status: confirmed.status }).toEqual({ index, subject: subject.id, status: 200 });
  return { subject, final: 'settled' };
}

/** How many creates the kill caught after they reserved the cap (undone since: their usage released, naming nothing). */
async function logAbandonedCreates(p: PayingPartner, subjectIds: string[]): Promise<void> {
  const usages = (
    await stand.pools.trading.query('SELECT usage_id FROM cap_usages WHERE partner_id = $1', [p.partner.partnerId])
  ).rows;
  const undone = usages.filter((usage) => !subjectIds.includes(usage.usage_id)).length;
  console.log(
    `payouts killed: ${undone} create(s) caught after reserving the cap, undone by the scheduler or their own compensation`,
  );
}

/** Exactly one transfer or send per key (a unique index guards it; this reads it back), and it is the one answered. */
async function expectOneRowPerKey(p: PayingPartner, keys: string[], accepted: Accepted[]): Promise<void> {
  const rows = (
    await stand.pools.payouts.query(
      `SELECT idempotency_key AS key, transfer_id AS id FROM transfers WHERE partner_id = $1
     UNION ALL SELECT idempotency_key, send_id FROM usdt_sends WHERE partner_id = $1`,
      [p.partner.partnerId],
    )
  ).rows;
  const idByKey = Object.fromEntries(rows.map((row) => [row.key, row.id]));
  expect(rows.length).toBe(keys.length);
  expect(keys.map((key) => idByKey[key])).toEqual(accepted.map((subject) => subject.id));
}

/** Each subject's settled event reaches the webhook as exactly one event id, and no other event names it. */
async function expectOneSettledEach(expected: Array<{ id: string; type: string }>): Promise<void> {
  const eventsOf = (subjectId: string) =>
    stand.receiver.requests
      .map((request) => JSON.parse(request.body))
      .filter((event) => JSON.stringify(event.data).includes(subjectId));
  for (const { id, type } of expected) {
    await waitFor(() => (eventsOf(id).some((event) => event.type === type) ? true : undefined), {
      timeoutMs: WEBHOOK_WAIT_MS,
      what: `${type} of ${id}`,
    });
  }
  await sleep(DUPLICATE_GRACE_MS);
  const seen = expected.map(({ id }) => ({
    id,
    events: [...new Set(eventsOf(id).map((event) => `${event.type} ${event.id}`))].length,
    types: [...new Set(eventsOf(id).map((event) => event.type))],
  }));
  expect(seen).toEqual(expected.map(({ id, type }) => ({ id, events: 1, types: [type] })));
}
