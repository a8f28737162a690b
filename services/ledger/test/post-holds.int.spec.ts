// Proves, against the real ledger, that PostHolds posts several holds exactly
// as PostHold would post each alone, in one transaction: every hold of two
// partners posted by one entry each, the balances moved by exactly that; a
// refused request (an unknown hold, a hold voided before) answers its own code
// while the others post; the same call again answers the posted holds and
// writes no second entry; the partner's KES balance answered by
// GetPartnerAccounts with_kes_balance is the one GetBalances answers; a hold
// named twice in one call is posted once; several holds of one account posted in
// one call (one statement for all their entries) leave the same postings,
// balances and statement lines as the same posts one by one, on the partner's
// account and the counter account alike; an overdue hold in a call is expired
// at its own request's turn, after the posts before it, as one by one; and the
// ledger still balances after.
import { randomUUID } from 'node:crypto';
import { createTestPartner, TestPartner, waitFor } from '@platform/testing';
import { codeOf, fundKes, kesBalance, useLedgerSpec } from './ledger-support';

const spec = useLedgerSpec();

beforeAll(async () => {});

async function fundedPartner(amountKes: string): Promise<TestPartner> {
  const partner = await createTestPartner();
  await fundKes(spec.client, partner.partnerId, amountKes);
  return partner;
}

async function placed(partner: TestPartner, amount: string): Promise<string> {
  const holdId = randomUUID();
  await spec.client.placeHold({ holdId, accountId: partner.kesAccountId, amount, metadata: { purpose: 'test' } });
  return holdId;
}

const postRequest = (holdId: string, amount: string) => ({
  holdId,
  postAmount: amount,
  kind: 'kes_debit_test',
  metadata: {},
  counterPostings: [{ accountId: spec.treasuryKes, amount }],
});

async function entriesOf(holdIds: string[]): Promise<number> {
  const { rows } = await spec.pool.query(
    `SELECT count(*)::int AS entries FROM entries WHERE metadata->>'holdId' = ANY($1)`,
    [holdIds],
  );
  return rows[0].entries;
}

it('posts each hold of the call exactly once, answers each refusal alone, and a repeat writes nothing', async () => {
  const [first, second] = await Promise.all([fundedPartner('1000.00'), fundedPartner('500.00')]);
  const holds = [await placed(first, '100.00'), await placed(second, '50.00'), await placed(first, '25.50')];
  const voided = await placed(second, '10.00');
  await spec.client.voidHold({ holdId: voided });
  const unknown = randomUUID();
  const requests = [
    postRequest(holds[0]!, '100.00'),
    postRequest(unknown, '1.00'),
    postRequest(holds[1]!, '50.00'),
    postRequest(voided, '10.00'),
    postRequest(holds[2]!, '25.50'),
  ];

  const { outcomes } = await spec.client.postHolds({ holds: requests });
  expect(outcomes.map((outcome) => outcome.hold?.status ?? outcome.errorCode)).toEqual([
    'posted',
    'LEDGER_HOLD_NOT_FOUND',
    'posted',
    'LEDGER_HOLD_ALREADY_RESOLVED',
    'posted',
  ]);
  expect(await entriesOf(holds)).toBe(3);
  expect(await kesBalance(spec.client, first.partnerId)).toMatchObject({ available: '874.50', held: '0.00' });
  expect(await kesBalance(spec.client, second.partnerId)).toMatchObject({ available: '450.00', held: '0.00' });

  const again = await spec.client.postHolds({ holds: requests });
  expect(again.outcomes.map((outcome) => outcome.hold?.entryId ?? outcome.errorCode)).toEqual(
    outcomes.map((outcome) => outcome.hold?.entryId ?? outcome.errorCode),
  );
  expect(await entriesOf(holds)).toBe(3);
  // A single post of the same request answers the same posted hold.
  expect(await spec.client.postHold(requests[0]!)).toEqual(outcomes[0]!.hold);
});

it('refuses an empty call or one over the bound', async () => {
  const codeOf = (holds: ReturnType<typeof postRequest>[]) =>
    spec.client.postHolds({ holds }).then(
      () => 'resolved',
      (error: { code?: string }) => error.code,
    );
  expect(await codeOf([])).toBe('VALIDATION_FAILED');
  expect(await codeOf(Array.from({ length: 51 }, () => postRequest(randomUUID(), '1.00')))).toBe('VALIDATION_FAILED');
});

it('answers the KES balance with the accounts when asked, the same GetBalances answers', async () => {
  const partner = await fundedPartner('300.00');
  await placed(partner, '120.00');
  const accounts = await spec.client.getPartnerAccounts({ partnerId: partner.partnerId, withKesBalance: true });
  expect(accounts.kesAccountId).toBe(partner.kesAccountId);
  expect(accounts.kesBalance).toEqual(await kesBalance(spec.client, partner.partnerId));
  expect(accounts.kesBalance).toMatchObject({ available: '180.00', held: '120.00', posted: '300.00' });
  expect((await spec.client.getPartnerAccounts({ partnerId: partner.partnerId })).kesBalance).toBeUndefined();
});

it('posts a hold named twice in one call once: the second request answers the posted hold, a different one is refused', async () => {
  const partner = await fundedPartner('300.00');
  const holdId = await placed(partner, '120.00');
  const { outcomes } = await spec.client.postHolds({
    holds: [postRequest(holdId, '120.00'), postRequest(holdId, '120.00'), postRequest(holdId, '60.00')],
  });
  expect(outcomes.map((outcome) => outcome.hold?.status ?? outcome.errorCode)).toEqual([
    'posted',
    'posted',
    'LEDGER_HOLD_ALREADY_RESOLVED',
  ]);
  expect(await entriesOf([holdId])).toBe(1);
  expect(await kesBalance(spec.client, partner.partnerId)).toMatchObject({ available: '180.00', held: '0.00' });
});

/** An account's statement lines and postings, hold ids named by their place in `holdIds` (comparable across partners). */
async function historyOf(accountId: string, holdIds: string[]): Promise<{ lines: unknown[]; postings: unknown[] }> {
  const lines = await spec.pool.query(
    `SELECT source, amount::text, available_after::text, hold_id::text, entry_id IS NOT NULL AS has_entry
       FROM statement_lines WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  const postings = await spec.pool.query(
    `SELECT amount::text, balance_after::text, version_after::text, held_after::text, for_partner
       FROM postings WHERE account_id = $1 ORDER BY version_after`,
    [accountId],
  );
  return {
    lines: lines.rows.map(({ hold_id: holdId, ...line }) => ({
      ...line,
      hold: holdId ? holdIds.indexOf(holdId) : null,
    })),
    postings: postings.rows,
  };
}

/**
 * The counter-postings (those not on `partnerAccountId`) of the entries posting `holdIds`, in
 * hold order, each with whether its balance_after and version_after follow its account's
 * posting before it (one version down, that balance plus this amount) and whether its
 * account's row now agrees with the account's latest posting.
 */
async function counterPostingsOf(partnerAccountId: string, holdIds: string[]): Promise<unknown[]> {
  const { rows } = await spec.pool.query(
    `SELECT array_position($2::text[], e.metadata->>'holdId') - 1 AS hold, p.amount::text,
            p.balance_after = coalesce(before.balance_after, 0) + p.amount AS follows_balance,
            (before.id IS NOT NULL OR p.version_after = 1) AS follows_version,
            (SELECT a.posted = latest.balance_after FROM accounts a
               JOIN postings latest ON latest.account_id = a.id AND latest.version_after = a.version
              WHERE a.id = p.account_id) AS account_agrees
       FROM entries e JOIN postings p ON p.entry_id = e.id AND p.account_id <> $1
       LEFT JOIN postings before ON before.account_id = p.account_id AND before.version_after = p.version_after - 1
      WHERE e.metadata->>'holdId' = ANY($2::text[])
      ORDER BY hold, p.version_after`,
    [partnerAccountId, holdIds],
  );
  return rows;
}

/**
 * Runs `posts` while `holdId` is overdue: the hold's row is locked by a transaction of the
 * test that moves its expiry into the past, so the expiry sweeper skips it, and committed
 * once `posts` waits on it; `posts` then finds it overdue, as a post arriving late would.
 */
async function whileOverdue<T>(holdId: string, posts: () => Promise<T>): Promise<T> {
  const client = await spec.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(
      `UPDATE holds SET expires_at = created_at + interval '1 microsecond' WHERE id = $1 RETURNING pg_backend_pid() AS pid`,
      [holdId],
    );
    const outcome = posts();
    await waitFor(
      async () =>
        (
          await spec.pool.query(`SELECT 1 FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))`, [
            rows[0].pid,
          ])
        ).rowCount! > 0,
      { timeoutMs: 30_000, what: 'the posts to wait on the overdue hold' },
    );
    await client.query('COMMIT');
    return await outcome;
  } finally {
    client.release();
  }
}

it('expires an overdue hold at its own turn in a call, after the posts before it, exactly as one by one', async () => {
  const [alone, together] = await Promise.all([fundedPartner('1000.00'), fundedPartner('1000.00')]);
  const holdsOf = async (partner: TestPartner) => [await placed(partner, '100.00'), await placed(partner, '40.00')];
  const [aloneHolds, togetherHolds] = [await holdsOf(alone), await holdsOf(together)];
  const requests = (holds: string[]) => [postRequest(holds[0]!, '80.00'), postRequest(holds[1]!, '40.00')];

  const aloneCodes = await whileOverdue(aloneHolds[1]!, async () => {
    const [first, second] = requests(aloneHolds);
    return [await codeOf(spec.client.postHold(first!)), await codeOf(spec.client.postHold(second!))];
  });
  const { outcomes } = await whileOverdue(togetherHolds[1]!, () =>
    spec.client.postHolds({ holds: requests(togetherHolds) }),
  );
  expect(aloneCodes).toEqual(['resolved', 'LEDGER_HOLD_ALREADY_RESOLVED']);
  expect(outcomes.map((outcome) => outcome.hold?.status ?? outcome.errorCode)).toEqual([
    'posted',
    'LEDGER_HOLD_ALREADY_RESOLVED',
  ]);
  expect((await spec.client.getHold({ holdId: togetherHolds[1]! })).status).toBe('expired');

  const balance = await kesBalance(spec.client, together.partnerId);
  expect(balance).toMatchObject({ posted: '920.00', held: '0.00', available: '920.00' });
  expect({ ...(await kesBalance(spec.client, alone.partnerId)), accountId: '' }).toEqual({ ...balance, accountId: '' });
  const togetherHistory = await historyOf(together.kesAccountId, togetherHolds);
  expect(togetherHistory).toEqual(await historyOf(alone.kesAccountId, aloneHolds));
  // The post comes first: the overdue hold is still held after its entry, and released after its lines.
  expect(togetherHistory.postings.slice(-1)).toEqual([
    {
      amount: '-80.000000',
      balance_after: '920.000000',
      version_after: '2',
      held_after: '40.000000',
      for_partner: true,
    },
  ]);
  expect(togetherHistory.lines.slice(-3)).toEqual([
    { source: 'hold_released', amount: '100.000000', available_after: '960.000000', hold: 0, has_entry: false },
    { source: 'posting', amount: '-80.000000', available_after: '880.000000', hold: null, has_entry: true },
    { source: 'hold_released', amount: '40.000000', available_after: '920.000000', hold: 1, has_entry: false },
  ]);
  const counter = await counterPostingsOf(together.kesAccountId, togetherHolds);
  expect(counter).toEqual(await counterPostingsOf(alone.kesAccountId, aloneHolds));
  expect(counter).toEqual([
    { hold: 0, amount: '80.000000', follows_balance: true, follows_version: true, account_agrees: true },
  ]);
});

it('posts several holds of one account in one call exactly as the same posts one by one: postings, balances, statement lines', async () => {
  const [alone, together] = await Promise.all([fundedPartner('1000.00'), fundedPartner('1000.00')]);
  const holdsOf = async (partner: TestPartner) => [
    await placed(partner, '100.00'),
    await placed(partner, '50.00'),
    await placed(partner, '30.00'),
    await placed(partner, '20.00'),
  ];
  const [aloneHolds, togetherHolds] = [await holdsOf(alone), await holdsOf(together)];
  // The first posted in part, the second whole, the third left pending, the fourth voided before.
  const requests = (holds: string[]) => [postRequest(holds[0]!, '80.00'), postRequest(holds[1]!, '50.00')];
  await spec.client.voidHold({ holdId: aloneHolds[3]! });
  await spec.client.voidHold({ holdId: togetherHolds[3]! });

  for (const request of requests(aloneHolds)) await spec.client.postHold(request);
  const { outcomes } = await spec.client.postHolds({ holds: requests(togetherHolds) });
  expect(outcomes.map((outcome) => outcome.hold?.status ?? outcome.errorCode)).toEqual(['posted', 'posted']);

  const balance = await kesBalance(spec.client, together.partnerId);
  expect(balance).toMatchObject({ posted: '870.00', held: '30.00', available: '840.00' });
  expect({ ...(await kesBalance(spec.client, alone.partnerId)), accountId: '' }).toEqual({ ...balance, accountId: '' });
  const aloneHistory = await historyOf(alone.kesAccountId, aloneHolds);
  const togetherHistory = await historyOf(together.kesAccountId, togetherHolds);
  expect(togetherHistory).toEqual(aloneHistory);
  // Each posting's held after its own entry: 50 and 30 still held after the first, 30 after the second.
  expect(togetherHistory.postings.slice(-2)).toEqual([
    {
      amount: '-80.000000',
      balance_after: '920.000000',
      version_after: '2',
      held_after: '80.000000',
      for_partner: true,
    },
    {
      amount: '-50.000000',
      balance_after: '870.000000',
      version_after: '3',
      held_after: '30.000000',
      for_partner: true,
    },
  ]);
  expect(togetherHistory.lines.slice(-4)).toEqual([
    { source: 'hold_released', amount: '100.000000', available_after: '920.000000', hold: 0, has_entry: false },
    { source: 'posting', amount: '-80.000000', available_after: '840.000000', hold: null, has_entry: true },
    { source: 'hold_released', amount: '50.000000', available_after: '890.000000', hold: 1, has_entry: false },
    { source: 'posting', amount: '-50.000000', available_after: '840.000000', hold: null, has_entry: true },
  ]);
  // The counter account's postings: each balance and version right after its own entry, the row as the last left it.
  const counter = await counterPostingsOf(together.kesAccountId, togetherHolds);
  expect(counter).toEqual(await counterPostingsOf(alone.kesAccountId, aloneHolds));
  expect(counter).toEqual([
    { hold: 0, amount: '80.000000', follows_balance: true, follows_version: true, account_agrees: true },
    { hold: 1, amount: '50.000000', follows_balance: true, follows_version: true, account_agrees: true },
  ]);
});
