// Proves that SIGKILL in the middle of the work of collections, the wallet
// registry and the notifier leaves no half-written state, answers cleanly while
// the service is down, and that retries after the restart do the work once.
// Runs in the serial `faults` project, alone. For each service, "whole" means:
// - collections, killed while collections are created and sandbox deposits
//   reported (each deposit credits at once, inside the request): every retried
//   create + deposit (same partnerReference, same rails deposit id) is accepted;
//   each collection ends `credited` with exactly one accepted deposit and one
//   ledger entry id; the partner's USD balance is the sum of the nets (a double
//   credit would show), nothing held; the ledger reconciles; and each
//   collection's `collection.received` reaches the webhook as one event id (the
//   outbox relay resumed). A collection caught `crediting` by the kill is taken
//   again once its 60 s lease (CREDIT_LEASE_MS) lapses, hence the longer wait.
// - wallet-registry, killed while wallets are registered (the approval code is
//   sent to the notifier inside the registration's transaction): re-registering
//   every address returns the wallet answered before the kill or makes it once;
//   each address has one wallet, pending the partner's approval, with exactly
//   one live code, and the newest code in the sandbox outbox confirms it.
//   (The registry emits no events; its only outbox holds the notices of
//   administrator changes, which the wallets here do not touch.)
// - the notifier, killed while KES transfers are created (the confirmation code
//   is sent inside the create): retrying every idempotency key answers 202 once
//   (the transfer answered before, or a fresh one: a create whose code send
//   failed is undone, its hold voided and its cap usage released); each key has
//   one transfer, awaiting confirmation, whose code is in the outbox and
//   confirms it; once all settle, every hold and cap usage is whole
//   (money-support.ts), the balance is the funding less amount + fee of each,
//   and the ledger reconciles. (The notifier has no outbox either.)
import { randomBytes, randomUUID } from 'node:crypto';
import { tronAddressFromAccountId } from '@platform/chain';
import { stackInfra, waitFor, setPartnerWebhook } from '@platform/testing';
import { expectCleanAnswers, killAmong, killStand, RECOVERY_POLL_MS, retryUntilAccepted } from './kill-support';
import {
  adminPartner,
  attempt,
  Attempt,
  codeFor,
  expectLedgerReconciles,
  expectSubjectBalancesMatch,
  expectSubjectsWhole,
  minorUnits,
  MoneyPartner,
  moneyPartner,
  MoneyPools,
  subjectsTerminated,
  transferBody,
} from './money-support';

const ATTEMPTS = 8;
/** The kill comes once this many are committed: some whole before it, the rest in flight or after. */
const COMMITTED_BEFORE_KILL = 2;
const DEPOSIT_USD = '100.00';
/** CREDIT_LEASE_MS (60 s) for a collection the kill caught crediting, plus a step and a webhook. */
const CREDITED_WAIT_MS = 90_000;
const WEBHOOK_WAIT_MS = 60_000;
/** Time a second, unwanted collection.received would have had to arrive. */
const DUPLICATE_GRACE_MS = 2_000;
const TRANSFER_KES = '100.00';
const TRANSFER_FEE_KES = '25.00';
const FUNDING_KES = '5000.00';
const DAILY_CAP_KES = '100000.00';
const FAULT_TEST_TIMEOUT_MS = 180_000;

const stand = killStand();

const count = async (pool: MoneyPools[keyof MoneyPools], sql: string, partnerId: string) =>
  Number((await pool.query(sql, [partnerId])).rows[0].n);

describe('collections killed with SIGKILL while collections are created and deposits credited', () => {
  it(
    'credits every deposit exactly once after the restart and fires collection.received once each',
    async () => {
      const p = await moneyPartner('1.00');
      await setPartnerWebhook(p.partner.partnerId, stand.receiver.url);
      const runId = randomUUID().slice(0, 8);
      const collectAndDeposit = async (index: number): Promise<Attempt> => {
        const created = await attempt(() =>
          p.http.post('/v1/collections', {
            currency: 'USD',
            partnerReference: `kill-${runId}-${index}`,
            payerLabel: 'Jane Payer',
          }),
        );
        if ('failed' in created || ![200, 201].includes(created.status)) return created;
        return attempt(() =>
          p.http.post(`/v1/sandbox/collections/${created.body.id}/deposits`, {
            amount: DEPOSIT_USD,
            depositId: `kill-${runId}-${index}`,
          }),
        );
      };
      const answers = await killAmong(
        'collections',
        ATTEMPTS,
        collectAndDeposit,
        () =>
          count(
            stand.pools.collections,
            'SELECT count(*) AS n FROM deposits d JOIN collections c ON c.id = d.collection_id WHERE c.partner_id = $1',
            p.partner.partnerId,
          ),
        COMMITTED_BEFORE_KILL,
      );
      expectCleanAnswers(answers, 'collections', [200, 201]);
      await stackInfra.startServices();
      for (let index = 0; index < ATTEMPTS; index += 1) {
        const deposit = await retryUntilAccepted(`deposit ${index}`, () => collectAndDeposit(index), [200, 201]);
        expect((deposit as { body: { disposition: string } }).body.disposition).toBe('accepted');
      }
      const collections = await waitFor(
        async () => {
          const rows = (
            await stand.pools.collections.query(
              'SELECT id, status, net_amount::text AS net, credit_entry_id FROM collections WHERE partner_id = $1',
              [p.partner.partnerId],
            )
          ).rows;
          return rows.length === ATTEMPTS && rows.every((row) => row.status === 'credited') ? rows : undefined;
        },
        { timeoutMs: CREDITED_WAIT_MS, intervalMs: RECOVERY_POLL_MS, what: 'every collection credited' },
      );
      expect(collections.filter((row) => !row.credit_entry_id)).toEqual([]);
      const deposits = (
        await stand.pools.collections.query(
          `SELECT d.collection_id, d.disposition FROM deposits d JOIN collections c ON c.id = d.collection_id WHERE c.partner_id = $1`,
          [p.partner.partnerId],
        )
      ).rows;
      expect(deposits.map((row) => row.disposition)).toEqual(Array(ATTEMPTS).fill('accepted'));
      expect(new Set(deposits.map((row) => row.collection_id)).size).toBe(ATTEMPTS);
      await expectUsdBalance(
        p,
        collections.reduce((sum, row) => sum + minorUnits(row.net, 2), 0n),
      );
      await expectLedgerReconciles(stand.pools);
      await expectOneReceivedEach(collections.map((row) => row.id));
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

async function expectUsdBalance(p: MoneyPartner, netMinor: bigint): Promise<void> {
  const balances = await p.http.get('/v1/balances');
  const usd = (balances.body as Array<{ currency: string; available: string; held: string }>).find(
    (balance) => balance.currency === 'USD',
  )!;
  expect({ available: minorUnits(usd.available, 2), held: minorUnits(usd.held, 2) }).toEqual({
    available: netMinor,
    held: 0n,
  });
}

async function expectOneReceivedEach(collectionIds: string[]): Promise<void> {
  const eventIds = (collectionId: string) =>
    new Set(
      stand.receiver.requests
        .map((request) => JSON.parse(request.body))
        .filter((event) => event.type === 'collection.received' && JSON.stringify(event.data).includes(collectionId))
        .map((event) => event.id),
    );
  for (const collectionId of collectionIds) {
    await waitFor(() => (eventIds(collectionId).size > 0 ? true : undefined), {
      timeoutMs: WEBHOOK_WAIT_MS,
      what: `collection.received of ${collectionId}`,
    });
  }
  await new Promise((resolve) => setTimeout(resolve, DUPLICATE_GRACE_MS));
  expect(collectionIds.filter((collectionId) => eventIds(collectionId).size !== 1)).toEqual([]);
}

describe('wallet-registry killed with SIGKILL while wallets are registered', () => {
  it(
    'leaves each address one wallet with one live code that confirms it, and re-registration makes none twice',
    async () => {
      const p = await adminPartner(DAILY_CAP_KES);
      const addresses = Array.from({ length: ATTEMPTS }, () => tronAddressFromAccountId(randomBytes(20)));
      const register = (index: number) =>
        attempt(() => p.http.post('/v1/wallets', { chain: 'tron', asset: 'USDT', address: addresses[index] }));
      const answers = await killAmong(
        'wallet-registry',
        ATTEMPTS,
        register,
        () =>
          count(
            stand.pools.walletRegistry,
            'SELECT count(*) AS n FROM wallets WHERE partner_id = $1',
            p.partner.partnerId,
          ),
        COMMITTED_BEFORE_KILL,
      );
      expectCleanAnswers(answers, 'wallet-registry', [200, 201]);
      await stackInfra.startServices();
      const walletIds: string[] = [];
      for (let index = 0; index < ATTEMPTS; index += 1) {
        const wallet = (await retryUntilAccepted(`wallet ${index}`, () => register(index), [200, 201])) as {
          body: { walletId: string };
        };
        const before = answers[index];
        if (!('failed' in before) && [200, 201].includes(before.status))
          expect(wallet.body.walletId).toBe(before.body.walletId);
        walletIds.push(wallet.body.walletId);
      }
      const wallets = (
        await stand.pools.walletRegistry.query(
          `SELECT w.id, w.address, w.status, (SELECT count(*) FROM wallet_codes c WHERE c.wallet_id = w.id AND c.status = 'live')::int AS live
         FROM wallets w WHERE w.partner_id = $1`,
          [p.partner.partnerId],
        )
      ).rows;
      expect(wallets.map((row) => row.address).sort()).toEqual([...addresses].sort());
      expect(wallets.map((row) => row.id).sort()).toEqual([...walletIds].sort());
      expect(wallets.filter((row) => row.status !== 'pending_partner_approval' || row.live !== 1)).toEqual([]);
      for (const walletId of walletIds) {
        const confirmed = await p.http.post(`/v1/wallets/${walletId}/confirm`, {
          otp: await codeFor(p.http, walletId),
        });
        expect({ walletId, status: confirmed.status }).toEqual({ walletId, status: 200 });
      }
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

describe('the notifier killed with SIGKILL while KES transfers send their codes', () => {
  it(
    'leaves each key one transfer awaiting confirmation with its code, or nothing held or reserved; each settles once',
    async () => {
      const p = await adminPartner(DAILY_CAP_KES);
      expect((await p.http.post('/v1/sandbox/kes-credits', { amount: FUNDING_KES })).status).toBe(201);
      const keys = Array.from({ length: ATTEMPTS }, (_, index) => `kill-notifier-${randomUUID()}-${index}`);
      const create = (index: number) =>
        attempt(() => p.http.post('/v1/transfers', transferBody('254712345678', TRANSFER_KES, keys[index])));
      const answers = await killAmong(
        'notifier',
        ATTEMPTS,
        create,
        () =>
          count(
            stand.pools.payouts,
            `SELECT count(*) AS n FROM transfers WHERE partner_id = $1 AND status = 'awaiting_confirmation'`,
            p.partner.partnerId,
          ),
        COMMITTED_BEFORE_KILL,
      );
      expectCleanAnswers(answers, 'notifier', [202]);
      await stackInfra.startServices();
      const transfers: Array<{ id: string; confirmation: { id: string } }> = [];
      for (let index = 0; index < ATTEMPTS; index += 1) {
        const transfer = (await retryUntilAccepted(`transfer ${index}`, () => create(index), [202])) as {
          body: { id: string; confirmation: { id: string } };
        };
        const before = answers[index];
        if (!('failed' in before) && before.status === 202) expect(transfer.body.id).toBe(before.body.id);
        transfers.push(transfer.body);
      }
      const rows = (
        await stand.pools.payouts.query('SELECT transfer_id, status FROM transfers WHERE partner_id = $1', [
          p.partner.partnerId,
        ])
      ).rows;
      expect(rows.map((row) => row.transfer_id).sort()).toEqual(transfers.map((transfer) => transfer.id).sort());
      // A transfer answered before the kill may outlive its code's lifetime (10 s in the test stack) while the
      // notifier restarts on a loaded machine: it then expires, its hold voided and its cap released (checked
      // below). Every other transfer awaits its confirmation.
      const answeredBeforeKill = new Set(
        answers.flatMap((answer) => (!('failed' in answer) && answer.status === 202 ? [answer.body.id] : [])),
      );
      const expired = new Set(rows.filter((row) => row.status === 'expired').map((row) => row.transfer_id));
      expect(
        rows.filter(
          (row) =>
            row.status !== 'awaiting_confirmation' &&
            !(row.status === 'expired' && answeredBeforeKill.has(row.transfer_id)),
        ),
      ).toEqual([]);
      for (const transfer of transfers.filter((candidate) => !expired.has(candidate.id))) {
        const confirmed = await p.http.post(`/v1/confirmations/${transfer.confirmation.id}`, {
          code: await codeFor(p.http, transfer.id),
        });
        expect({ transfer: transfer.id, status: confirmed.status }).toEqual({ transfer: transfer.id, status: 200 });
      }
      const subjects = await subjectsTerminated(stand.pools, p.partner.partnerId);
      expect(
        subjects
          .map((subject) => ({ id: subject.id, status: subject.status }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      ).toEqual(
        transfers
          .map((transfer) => ({ id: transfer.id, status: expired.has(transfer.id) ? 'expired' : 'settled' }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      );
      expect(subjects.filter((subject) => subject.status === 'settled').length).toBeGreaterThan(0);
      await expectSubjectsWhole(stand.pools, p.partner.partnerId, subjects, DAILY_CAP_KES);
      await expectSubjectBalancesMatch(p.http, FUNDING_KES, '0', subjects);
      const settled = subjects.filter((subject) => subject.status === 'settled');
      expect(
        settled.every(
          (subject) =>
            minorUnits(subject.kesDebit, 2) === minorUnits(TRANSFER_KES, 2) + minorUnits(TRANSFER_FEE_KES, 2),
        ),
      ).toBe(true);
      await expectLedgerReconciles(stand.pools);
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});
