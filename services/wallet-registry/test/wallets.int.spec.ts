// Proves, through the gateway against the real stack, every row of the
// withdrawal-address state table and every documented refusal: registration and its
// three re-registration cases, confirmation, service review (sandbox helper
// and ops), revocation, the 404s; the concurrency cases (parallel
// registrations of one address make one wallet; ten parallel wrong codes count
// at most five); a removed administrator's code lapsing; expiry; and, last,
// that no code is readable anywhere but the sandbox outbox: not in any other
// response of this file, not in any service log. The two tests that wait on a
// clock (a code's lifetime, a new administrator's waiting period) start it in
// beforeAll, so it runs while the tests before theirs do.
import type { PromiseClient } from '@platform/grpc';
import { UUID_PATTERN } from '@platform/ids';
import { createLogger } from '@platform/logger';
import { walletRegistry } from '@platform/proto';
import { loadTestStack, routedClient, runOps, TestPartner, waitFor } from '@platform/testing';
import { WALLET_REGISTRY_ACCESS } from '../src/grpc/access';
import { ISO_MS, leaksOf, newTronAddress, partnerWithClient, RecordingClient, serviceLogLines, sleep } from './helpers';

const VALID_ADDRESS_SHAPE = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const WALLET_CODE_TTL_MS_DEFAULT = 10 * 60 * 1_000;
/** Beyond the test stack's administrator waiting period (10 s). */
const ADMIN_REMOVABLE_WAIT_MS = 40_000;
const logger = createLogger('wallet-registry-int-test', 'error');

/** Started now, awaited by a test later: a failure meanwhile is that test's, not an unhandled rejection. */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

function wrongCode(code: string): string {
  return String((Number.parseInt(code, 10) + 1) % 1_000_000).padStart(6, '0');
}

describe('withdrawal addresses', () => {
  const clients: RecordingClient[] = [];
  const codesSeen = new Set<string>();
  let partner: TestPartner;
  let http: RecordingClient;
  let domain: string;
  let registry: PromiseClient<typeof walletRegistry.WalletRegistryService>;

  async function newPartner(admins: string[] = ['jane']) {
    const created = await partnerWithClient();
    clients.push(created.http);
    for (const local of admins) {
      const admin = await created.http.post('/v1/admins', { email: `${local}@${created.adminDomain}`, name: local });
      expect(admin.status).toBe(201);
    }
    return created;
  }

  const register = (client: RecordingClient, address: string) =>
    client.post('/v1/wallets', { chain: 'tron', asset: 'USDT', address });

  async function codeOf(client: RecordingClient, walletId: string): Promise<string> {
    const { code } = await client.latestCode(walletId);
    codesSeen.add(code);
    return code;
  }

  /**
   * Begun before the tests, for the two that wait on a clock: the code lifetime of a registration,
   * and a second administrator's waiting period. Both then run while the tests before theirs do.
   */
  let expiring: Promise<{ address: string; walletId: string; code: string; codeSeenAtMs: number }>;
  let twoAdministrators: ReturnType<typeof newPartner>;

  beforeAll(async () => {
    ({ partner, http, adminDomain: domain } = await newPartner(['jane', 'zed']));
    registry = routedClient(walletRegistry.WalletRegistryService, WALLET_REGISTRY_ACCESS.PARTNER, {
      upstream: 'wallet-registry',
      logger,
    });
    twoAdministrators = started(newPartner(['amina', 'brian']));
    expiring = started(
      (async () => {
        const address = newTronAddress();
        const walletId = (await register(http, address)).body.walletId;
        const code = await codeOf(http, walletId);
        return { address, walletId, code, codeSeenAtMs: Date.now() };
      })(),
    );
  });

  afterAll(() => registry.close());

  it('registers: 201 with the spec shape; the code goes to the earliest-registered administrator', async () => {
    const address = newTronAddress();
    const created = await register(http, address);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      walletId: expect.stringMatching(UUID_PATTERN),
      chain: 'tron',
      asset: 'USDT',
      address,
      label: '',
      status: 'pending_partner_approval',
      screeningStatus: 'pending',
      createdAt: expect.stringMatching(ISO_MS),
      approvalSentTo: `j***@${domain}`,
      nextStep: expect.any(String),
    });
    const [entry] = await http.codesFor(created.body.walletId);
    expect(entry).toEqual({
      id: expect.stringMatching(UUID_PATTERN),
      kind: 'wallet_approval',
      to: `j***@${domain}`,
      subject: expect.any(String),
      code: expect.stringMatching(/^\d{6}$/),
      subjectType: 'wallet',
      subjectId: created.body.walletId,
      createdAt: expect.stringMatching(ISO_MS),
    });
    codesSeen.add(entry.code as string);
    expect(address).toMatch(VALID_ADDRESS_SHAPE);
  });

  it('keeps an optional label', async () => {
    const created = await http.post('/v1/wallets', {
      chain: 'tron',
      asset: 'USDT',
      address: newTronAddress(),
      label: 'Treasury cold',
    });
    expect(created.status).toBe(201);
    expect(created.body.label).toBe('Treasury cold');
    await codeOf(http, created.body.walletId);
  });

  it('refuses a bad chain, asset or address: 400 naming each', async () => {
    const good = newTronAddress();
    const flipped = good.slice(0, 20) + (good[20] === 'a' ? 'b' : 'a') + good.slice(21);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ chain: 'TRON', asset: 'USDT', address: good }, 'Validation failed on: chain'],
      [{ chain: 'ethereum', asset: 'USDT', address: good }, 'Validation failed on: chain'],
      [{ chain: 'tron', asset: 'usdt', address: good }, 'Validation failed on: asset'],
      [{ chain: 'tron', asset: 'TRX', address: good }, 'Validation failed on: asset'],
      [{ chain: 'tron', asset: 'USDT', address: flipped }, 'Validation failed on: address'],
      [{ chain: 'tron', asset: 'USDT', address: good.slice(0, 33) }, 'Validation failed on: address'],
      [{ chain: 'tron', asset: 'USDT', address: `${good} ` }, 'Validation failed on: address'],
      [
        { chain: 'tron', asset: 'USDT', address: '0x52908400098527886E0F7030069857D2E4169EE7' },
        'Validation failed on: address',
      ],
      [{ chain: 'tron', asset: 'USDT', address: 12 }, 'Validation failed on: address'],
      [
        { chain: 'btc', asset: 'BTC', address: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh' },
        'Validation failed on: chain, asset, address',
      ],
      [{ asset: 'USDT', address: good }, 'Validation failed on: chain'],
      [{ chain: 'tron', asset: 'USDT', address: good, memo: 'x' }, 'Validation failed on: memo'],
    ];
    for (const [body, message] of cases) {
      const result = await http.post('/v1/wallets', body);
      expect({ body, status: result.status, message: result.body.message }).toEqual({ body, status: 400, message });
    }
    expect((await http.get('/v1/wallets')).body.some((wallet: { address: string }) => wallet.address === good)).toBe(
      false,
    );
  });

  it('answers 409 NO_ADMINISTRATOR_REGISTERED without an administrator, and leaves no wallet behind', async () => {
    const { http: lonely, adminDomain } = await newPartner([]);
    const address = newTronAddress();
    const refused = await register(lonely, address);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('NO_ADMINISTRATOR_REGISTERED');
    expect((await lonely.get('/v1/wallets')).body).toEqual([]);
    expect(await lonely.outbox()).toEqual([]);
    await lonely.post('/v1/admins', { email: `late@${adminDomain}`, name: 'Late' });
    const accepted = await register(lonely, address);
    expect(accepted.status).toBe(201);
    await codeOf(lonely, accepted.body.walletId);
  });

  it('returns the same registration while its code is live: 200, no new code', async () => {
    const address = newTronAddress();
    const first = await register(http, address);
    await codeOf(http, first.body.walletId);
    const again = await register(http, address);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await http.codesFor(first.body.walletId)).toHaveLength(1);
  });

  it('confirms with the right code (200 pending_service_approval); beyond that, registration is unchanged and sends nothing', async () => {
    const address = newTronAddress();
    const created = await register(http, address);
    const walletId = created.body.walletId;
    const code = await codeOf(http, walletId);

    const wrong = await http.post(`/v1/wallets/${walletId}/confirm`, { otp: wrongCode(code) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('WALLET_CODE_INCORRECT');
    for (const otp of ['12345', '1234567', 'abcdef', 123456]) {
      const malformed = await http.post(`/v1/wallets/${walletId}/confirm`, { otp });
      expect(malformed.status).toBe(400);
      expect(malformed.body.message).toBe('Validation failed on: otp');
    }

    const confirmed = await http.post(`/v1/wallets/${walletId}/confirm`, { otp: code });
    expect(confirmed.status).toBe(200);
    const { approvalSentTo: _sentTo, ...registered } = created.body;
    expect(confirmed.body).toEqual({ ...registered, status: 'pending_service_approval', nextStep: expect.any(String) });
    expect(confirmed.body.nextStep).not.toBe(created.body.nextStep);

    // A retried confirm with the same code is safe; any other code no longer works.
    expect((await http.post(`/v1/wallets/${walletId}/confirm`, { otp: code })).status).toBe(200);
    const stale = await http.post(`/v1/wallets/${walletId}/confirm`, { otp: wrongCode(code) });
    expect(stale.status).toBe(403);
    expect(stale.body.message).toBe('WALLET_CODE_EXPIRED');

    const reRegistered = await register(http, address);
    expect(reRegistered.status).toBe(200);
    expect(reRegistered.body).toEqual(confirmed.body);
    expect(reRegistered.body.approvalSentTo).toBeUndefined();

    const approved = await http.post(`/v1/sandbox/wallets/${walletId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ walletId, status: 'active', screeningStatus: 'cleared' });
    expect((await http.post(`/v1/sandbox/wallets/${walletId}/approve`)).status).toBe(200);
    const afterActive = await register(http, address);
    expect(afterActive.status).toBe(200);
    expect(afterActive.body).toMatchObject({ walletId, status: 'active' });
    expect(afterActive.body.approvalSentTo).toBeUndefined();
    expect(await http.codesFor(walletId)).toHaveLength(1);
  });

  async function confirmedWallet(client: RecordingClient): Promise<string> {
    const created = await register(client, newTronAddress());
    const code = await codeOf(client, created.body.walletId);
    expect((await client.post(`/v1/wallets/${created.body.walletId}/confirm`, { otp: code })).status).toBe(200);
    return created.body.walletId;
  }

  it('is reviewed by operators: ops wallet approve / reject, screening moving with the status', async () => {
    const toApprove = await confirmedWallet(http);
    const toReject = await confirmedWallet(http);
    expect(await runOps(['wallet', 'approve', '--partner', partner.partnerId, '--wallet', toApprove])).toEqual({
      walletId: toApprove,
      status: 'active',
    });
    expect(await runOps(['wallet', 'reject', '--partner', partner.partnerId, '--wallet', toReject])).toEqual({
      walletId: toReject,
      status: 'rejected',
    });
    const list = (await http.get('/v1/wallets')).body as Array<{
      walletId: string;
      address: string;
      status: string;
      screeningStatus: string;
    }>;
    expect(list.find((wallet) => wallet.walletId === toApprove)).toMatchObject({
      status: 'active',
      screeningStatus: 'cleared',
    });
    expect(list.find((wallet) => wallet.walletId === toReject)).toMatchObject({
      status: 'rejected',
      screeningStatus: 'rejected',
    });

    // Review only follows the administrator's confirmation, and a decision is never reversed.
    const unconfirmed = await register(http, newTronAddress());
    await codeOf(http, unconfirmed.body.walletId);
    await expect(
      runOps(['wallet', 'approve', '--partner', partner.partnerId, '--wallet', unconfirmed.body.walletId]),
    ).rejects.toThrow('WALLET_NOT_AWAITING_REVIEW');
    await expect(runOps(['wallet', 'approve', '--partner', partner.partnerId, '--wallet', toReject])).rejects.toThrow(
      'WALLET_NOT_AWAITING_REVIEW',
    );
    const early = await http.post(`/v1/sandbox/wallets/${unconfirmed.body.walletId}/approve`);
    expect(early.status).toBe(409);
    expect(early.body.message).toBe('WALLET_NOT_AWAITING_REVIEW');
    const rejectedAddress = list.find((wallet) => wallet.walletId === toReject)?.address ?? '';
    const rejectedAgain = await register(http, rejectedAddress);
    expect(rejectedAgain.status).toBe(200);
    expect(rejectedAgain.body).toMatchObject({ walletId: toReject, status: 'rejected' });
  });

  it('counts at most five of ten parallel wrong codes; the fifth cancels, then even the right code is locked; re-registering sends a fresh code', async () => {
    const address = newTronAddress();
    const created = await register(http, address);
    const walletId = created.body.walletId;
    const code = await codeOf(http, walletId);
    const guesses = await Promise.all(
      Array.from({ length: 10 }, () => http.post(`/v1/wallets/${walletId}/confirm`, { otp: wrongCode(code) })),
    );
    const incorrect = guesses.filter((guess) => guess.status === 400 && guess.body.message === 'WALLET_CODE_INCORRECT');
    const locked = guesses.filter((guess) => guess.status === 403 && guess.body.message === 'WALLET_CODE_LOCKED');
    expect(incorrect).toHaveLength(5);
    expect(locked).toHaveLength(5);

    const right = await http.post(`/v1/wallets/${walletId}/confirm`, { otp: code });
    expect(right.status).toBe(403);
    expect(right.body.message).toBe('WALLET_CODE_LOCKED');

    const fresh = await register(http, address);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({
      walletId,
      status: 'pending_partner_approval',
      approvalSentTo: `j***@${domain}`,
    });
    const entries = await http.codesFor(walletId);
    expect(entries).toHaveLength(2);
    const freshCode = await codeOf(http, walletId);
    expect(entries[0].code).toBe(freshCode);
    expect(entries[0].createdAt >= entries[1].createdAt).toBe(true);
    expect((await http.post(`/v1/wallets/${walletId}/confirm`, { otp: freshCode })).body.status).toBe(
      'pending_service_approval',
    );
  });

  it('counts wrong codes one by one: four answer incorrect, the fifth answers incorrect and cancels', async () => {
    const created = await register(http, newTronAddress());
    const walletId = created.body.walletId;
    const code = await codeOf(http, walletId);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const guess = await http.post(`/v1/wallets/${walletId}/confirm`, { otp: wrongCode(code) });
      expect({ attempt, status: guess.status, message: guess.body.message }).toEqual({
        attempt,
        status: 400,
        message: 'WALLET_CODE_INCORRECT',
      });
    }
    const sixth = await http.post(`/v1/wallets/${walletId}/confirm`, { otp: wrongCode(code) });
    expect(sixth.status).toBe(403);
    expect(sixth.body.message).toBe('WALLET_CODE_LOCKED');
  });

  it('makes one wallet of concurrent registrations of one address, and sends one code', async () => {
    const address = newTronAddress();
    const results = await Promise.all(Array.from({ length: 8 }, () => register(http, address)));
    expect(results.map((result) => result.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const ids = new Set(results.map((result) => result.body.walletId));
    expect(ids.size).toBe(1);
    const [walletId] = [...ids];
    await codeOf(http, walletId);
    expect(await http.codesFor(walletId)).toHaveLength(1);
    expect(
      (await http.get('/v1/wallets')).body.filter((wallet: { address: string }) => wallet.address === address),
    ).toHaveLength(1);
  });

  it('lapses a code when its administrator is removed (403 WALLET_CODE_EXPIRED); the fresh code goes to the next administrator', async () => {
    const { http: own, adminDomain } = await twoAdministrators;
    const address = newTronAddress();
    const created = await register(own, address);
    expect(created.body.approvalSentTo).toBe(`a***@${adminDomain}`);
    const walletId = created.body.walletId;
    const code = await codeOf(own, walletId);
    const [amina] = (await own.get('/v1/admins')).body;
    // Brian must first be past his waiting period: until then Amina is the last who may receive codes.
    await waitFor(async () => (await own.delete(`/v1/admins/${amina.adminId}`)).status === 204, {
      timeoutMs: ADMIN_REMOVABLE_WAIT_MS,
      intervalMs: 500,
      what: 'Amina to become removable',
    });

    const lapsed = await own.post(`/v1/wallets/${walletId}/confirm`, { otp: code });
    expect(lapsed.status).toBe(403);
    expect(lapsed.body.message).toBe('WALLET_CODE_EXPIRED');

    const fresh = await register(own, address);
    expect(fresh.status).toBe(200);
    expect(fresh.body.approvalSentTo).toBe(`b***@${adminDomain}`);
    const freshCode = await codeOf(own, walletId);
    expect((await own.post(`/v1/wallets/${walletId}/confirm`, { otp: freshCode })).status).toBe(200);
  }, 60_000);

  it('revokes at once and for good: 204; GetWalletStatus says revoked; then 404 everywhere, and the address may be registered anew', async () => {
    const walletId = await confirmedWallet(http);
    await http.post(`/v1/sandbox/wallets/${walletId}/approve`);
    expect(await registry.getWalletStatus({ partnerId: partner.partnerId, walletId })).toMatchObject({
      walletId,
      status: 'active',
      active: true,
    });
    const address = (await http.get('/v1/wallets')).body.find(
      (wallet: { walletId: string }) => wallet.walletId === walletId,
    ).address;

    const revoked = await http.delete(`/v1/wallets/${walletId}`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expect(await registry.getWalletStatus({ partnerId: partner.partnerId, walletId })).toMatchObject({
      walletId,
      status: 'revoked',
      active: false,
    });

    for (const result of [
      await http.delete(`/v1/wallets/${walletId}`),
      await http.post(`/v1/wallets/${walletId}/confirm`, { otp: '000000' }),
      await http.post(`/v1/sandbox/wallets/${walletId}/approve`),
    ]) {
      expect(result.status).toBe(404);
      expect(result.body.message).toBe('WALLET_NOT_FOUND');
    }
    expect(
      (await http.get('/v1/wallets')).body.some((wallet: { walletId: string }) => wallet.walletId === walletId),
    ).toBe(false);

    const anew = await register(http, address);
    expect(anew.status).toBe(201);
    expect(anew.body.walletId).not.toBe(walletId);
    await codeOf(http, anew.body.walletId);
  });

  it('revokes a wallet still awaiting its code: the code dies with it', async () => {
    const created = await register(http, newTronAddress());
    const code = await codeOf(http, created.body.walletId);
    expect((await http.delete(`/v1/wallets/${created.body.walletId}`)).status).toBe(204);
    expect((await http.post(`/v1/wallets/${created.body.walletId}/confirm`, { otp: code })).status).toBe(404);
  });

  it('answers 404 WALLET_NOT_FOUND for unknown, malformed and foreign wallets', async () => {
    const other = await newPartner(['olive']);
    const foreign = await register(other.http, newTronAddress());
    const foreignCode = await codeOf(other.http, foreign.body.walletId);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', foreign.body.walletId]) {
      for (const result of [
        await http.post(`/v1/wallets/${id}/confirm`, { otp: foreignCode }),
        await http.delete(`/v1/wallets/${id}`),
        await http.post(`/v1/sandbox/wallets/${id}/approve`),
      ]) {
        expect({ id, status: result.status, message: result.body.message }).toEqual({
          id,
          status: 404,
          message: 'WALLET_NOT_FOUND',
        });
      }
    }
    await expect(
      registry.getWalletStatus({ partnerId: partner.partnerId, walletId: foreign.body.walletId }),
    ).rejects.toThrow('WALLET_NOT_FOUND');
    // The foreign wallet is untouched, and the other partner's outbox holds none of ours.
    expect((await other.http.get('/v1/wallets')).body).toEqual([
      expect.objectContaining({ walletId: foreign.body.walletId, status: 'pending_partner_approval' }),
    ]);
    expect(
      (await other.http.outbox())
        .filter((entry) => entry.subjectType === 'wallet')
        .every((entry) => entry.subjectId === foreign.body.walletId),
    ).toBe(true);
  });

  it("lists the partner's wallets newest first with the spec fields", async () => {
    const list = await http.get('/v1/wallets');
    expect(list.status).toBe(200);
    expect(list.body.length).toBeGreaterThan(5);
    for (const wallet of list.body) {
      expect(Object.keys(wallet).sort()).toEqual([
        'address',
        'asset',
        'chain',
        'createdAt',
        'label',
        'nextStep',
        'screeningStatus',
        'status',
        'walletId',
      ]);
    }
    const created = list.body.map((wallet: { createdAt: string }) => wallet.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
  });

  it('needs wallets to write, read to list, sandbox for the helpers', async () => {
    const readOnly = new RecordingClient(
      (await runOps(['credential', 'issue', '--partner', partner.partnerId, '--scopes', 'read'])) as never,
    );
    const walletsOnly = new RecordingClient(
      (await runOps(['credential', 'issue', '--partner', partner.partnerId, '--scopes', 'wallets'])) as never,
    );
    clients.push(readOnly, walletsOnly);
    expect((await register(readOnly, newTronAddress())).status).toBe(403);
    expect(
      (await readOnly.post('/v1/wallets/00000000-0000-4000-8000-000000000000/confirm', { otp: '123456' })).status,
    ).toBe(403);
    expect((await readOnly.delete('/v1/wallets/00000000-0000-4000-8000-000000000000')).status).toBe(403);
    expect((await readOnly.get('/v1/wallets')).status).toBe(200);
    expect((await readOnly.get('/v1/sandbox/outbox')).status).toBe(403);
    expect((await walletsOnly.get('/v1/wallets')).status).toBe(403);
    expect((await walletsOnly.post('/v1/sandbox/wallets/00000000-0000-4000-8000-000000000000/approve')).status).toBe(
      403,
    );
  });

  it('expires the code after its lifetime (403 WALLET_CODE_EXPIRED); re-registering then sends a fresh code', async () => {
    const ttlMs =
      WALLET_CODE_TTL_MS_DEFAULT * Number((loadTestStack() as { sandboxTimeScale?: number }).sandboxTimeScale ?? 1);
    if (ttlMs > 45_000)
      throw new Error(
        `the test stack's code lifetime (${ttlMs} ms) is too long to wait for; run with SANDBOX_TIME_SCALE ≤ 0.075`,
      );
    const { address, walletId, code, codeSeenAtMs } = await expiring;
    await sleep(Math.max(0, codeSeenAtMs + ttlMs + 1_000 - Date.now()));
    const expired = await http.post(`/v1/wallets/${walletId}/confirm`, { otp: code });
    expect(expired.status).toBe(403);
    expect(expired.body.message).toBe('WALLET_CODE_EXPIRED');
    const fresh = await register(http, address);
    expect(fresh.status).toBe(200);
    expect(fresh.body.walletId).toBe(walletId);
    const freshCode = await codeOf(http, walletId);
    expect(await http.codesFor(walletId)).toHaveLength(2);
    expect((await http.post(`/v1/wallets/${walletId}/confirm`, { otp: freshCode })).status).toBe(200);
  }, 60_000);

  // Last on purpose: it reads what every test above produced.
  it('never shows a code outside the sandbox outbox: in no other response and in no service log', async () => {
    const codes = [...codesSeen];
    expect(codes.length).toBeGreaterThan(10);
    expect(
      leaksOf(
        codes,
        clients.flatMap((client) => client.transcript),
      ),
    ).toEqual([]);
    expect(leaksOf(codes, serviceLogLines())).toEqual([]);
  });
});
