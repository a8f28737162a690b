// Proves, through the gateway against the real stack, what keeps a stolen
// credential from handing the partner's codes to an administrator of its own:
// - every administrator active at a change, the one added or removed
//   included, is e-mailed a notice of it (read from the sandbox outbox), and
//   the notice carries no code;
// - the partner's first administrator receives codes at once;
// - a new administrator receives none during its waiting period (the test
//   stack's 200 s × 0.05 = 10 s) while an old one does, and the old one
//   cannot be removed meanwhile (409 ADMIN_LAST_CODE_RECIPIENT); once the
//   period is over the old one can go and the new one receives the codes,
//   wallet approval codes and (as payouts asks) confirmation codes alike;
// - a waiting administrator can always be removed, the only one never.
import type { PromiseClient } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { walletRegistry } from '@platform/proto';
import { clientAs, serviceEnvironment, waitFor } from '@platform/testing';
import { newTronAddress, OutboxEntry, partnerWithClient, RecordingClient } from './helpers';

const logger = createLogger('admin-changes-int-test', 'error');
const WAITING_PERIOD_MS_DEFAULT = 24 * 60 * 60 * 1_000;
/** Longer than this and the spec could not wait for the period to end within its timeout. */
const WAITING_PERIOD_MS_WAITABLE_MAX = 30_000;
/** The period starts at the registration, a moment before the test's own clock reading after it. */
const CLOCK_MARGIN_MS = 1_000;
const SPEC_TIMEOUT_MS = 60_000;

/** The waiting period in force on the test stack (scaled as the service scales it in sandbox mode). */
function waitingPeriodMs(): number {
  const env = serviceEnvironment('wallet-registry');
  const periodMs =
    Number(env.ADMIN_WAITING_PERIOD_MS ?? WAITING_PERIOD_MS_DEFAULT) * Number(env.SANDBOX_TIME_SCALE ?? 1);
  if (periodMs > WAITING_PERIOD_MS_WAITABLE_MAX) {
    throw new Error(
      `the test stack's administrator waiting period (${periodMs} ms) is too long to wait for; run through npm test`,
    );
  }
  return periodMs;
}

interface Admin {
  adminId: string;
  email: string;
}

async function addAdmin(http: RecordingClient, email: string): Promise<Admin> {
  const created = await http.post('/v1/admins', { email, name: email.split('@')[0] });
  expect(created.status).toBe(201);
  return created.body;
}

function masked(email: string): string {
  const [local, domain] = email.split('@');
  return `${local[0]}***@${domain}`;
}

/** The notices about `admin` of one kind, once `count` of them are in the outbox. */
async function noticesAbout(http: RecordingClient, admin: Admin, kind: string, count: number): Promise<OutboxEntry[]> {
  return waitFor(
    async () => {
      const entries = (await http.outbox()).filter((entry) => entry.kind === kind && entry.subjectId === admin.adminId);
      return entries.length >= count ? entries : undefined;
    },
    { what: `${count} ${kind} notices about ${admin.adminId}` },
  );
}

async function registerWallet(http: RecordingClient) {
  const created = await http.post('/v1/wallets', { chain: 'tron', asset: 'USDT', address: newTronAddress() });
  expect(created.status).toBe(201);
  return created.body as { walletId: string; approvalSentTo: string };
}

describe('administrator changes', () => {
  let registry: PromiseClient<typeof walletRegistry.WalletRegistryService>;

  beforeAll(() => {
    // Asked as payouts asks it for confirmation codes.
    registry = clientAs('payouts', walletRegistry.WalletRegistryService, { upstream: 'wallet-registry', logger });
  });

  afterAll(() => registry.close());

  it('e-mails every active administrator of each addition and removal, the one changed included, never with a code', async () => {
    const { http, adminDomain } = await partnerWithClient();
    const amina = await addAdmin(http, `amina@${adminDomain}`);
    const brian = await addAdmin(http, `brian@${adminDomain}`);
    const chris = await addAdmin(http, `chris@${adminDomain}`);

    const toOf = (entries: OutboxEntry[]) => entries.map((entry) => entry.to).sort();
    expect(toOf(await noticesAbout(http, amina, 'administrator_added', 1))).toEqual([masked(amina.email)]);
    expect(toOf(await noticesAbout(http, brian, 'administrator_added', 2))).toEqual([
      masked(amina.email),
      masked(brian.email),
    ]);
    const chrisAdded = await noticesAbout(http, chris, 'administrator_added', 3);
    expect(toOf(chrisAdded)).toEqual([masked(amina.email), masked(brian.email), masked(chris.email)]);

    expect((await http.delete(`/v1/admins/${chris.adminId}`)).status).toBe(204);
    const chrisRemoved = await noticesAbout(http, chris, 'administrator_removed', 3);
    expect(toOf(chrisRemoved)).toEqual([masked(amina.email), masked(brian.email), masked(chris.email)]);

    for (const entry of [...chrisAdded, ...chrisRemoved]) {
      expect(entry).toMatchObject({
        code: null,
        subjectType: 'administrator',
        subject: expect.stringMatching(/administrator was (added to|removed from)/),
      });
    }
    // Each notice once: a retried or re-claimed notice is never mailed twice.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await http.outbox()).filter((entry) => entry.subjectId === chris.adminId)).toHaveLength(6);
  });

  it("gives the partner's first administrator codes at once", async () => {
    const { partner, http, adminDomain } = await partnerWithClient();
    const first = await addAdmin(http, `first@${adminDomain}`);
    const wallet = await registerWallet(http);
    expect(wallet.approvalSentTo).toBe(masked(first.email));
    const code = await http.latestCode(wallet.walletId);
    expect(code.entry.to).toBe(masked(first.email));
    expect((await registry.getCodeRecipient({ partnerId: partner.partnerId })).adminId).toBe(first.adminId);
  });

  it(
    'sends a new administrator no code during its waiting period while an old one gets them, and keeps the old one until the period ends',
    async () => {
      const periodMs = waitingPeriodMs();
      const { partner, http, adminDomain } = await partnerWithClient();
      const old = await addAdmin(http, `olga@${adminDomain}`);
      const added = await addAdmin(http, `nuru@${adminDomain}`);
      const addedAtMs = Date.now();

      // During the period: codes go to the old administrator only, and it cannot be removed.
      const during = await registerWallet(http);
      expect(during.approvalSentTo).toBe(masked(old.email));
      expect((await http.latestCode(during.walletId)).entry.to).toBe(masked(old.email));
      expect((await registry.getCodeRecipient({ partnerId: partner.partnerId })).adminId).toBe(old.adminId);
      const refused = await http.delete(`/v1/admins/${old.adminId}`);
      expect({ status: refused.status, message: refused.body.message }).toEqual({
        status: 409,
        message: 'ADMIN_LAST_CODE_RECIPIENT',
      });
      expect((await http.get('/v1/admins')).body.map((admin: Admin) => admin.adminId)).toEqual([
        old.adminId,
        added.adminId,
      ]);

      // The refusal holds for the whole period; then the old one may go.
      await waitFor(async () => (await http.delete(`/v1/admins/${old.adminId}`)).status === 204, {
        timeoutMs: periodMs + 15_000,
        intervalMs: 500,
        what: 'the old administrator to become removable',
      });
      expect(Date.now() - addedAtMs).toBeGreaterThanOrEqual(periodMs - CLOCK_MARGIN_MS);

      // After the period: the new administrator receives the codes, and no code before went to it.
      const after = await registerWallet(http);
      expect(after.approvalSentTo).toBe(masked(added.email));
      expect((await http.latestCode(after.walletId)).entry.to).toBe(masked(added.email));
      expect((await registry.getCodeRecipient({ partnerId: partner.partnerId })).adminId).toBe(added.adminId);
      const codesToAdded = (await http.outbox()).filter(
        (entry) => entry.code !== null && entry.to === masked(added.email),
      );
      expect(codesToAdded.map((entry) => entry.subjectId)).toEqual([after.walletId]);
    },
    SPEC_TIMEOUT_MS,
  );

  it('always removes a waiting administrator, and never the only one', async () => {
    const { http, adminDomain } = await partnerWithClient();
    const only = await addAdmin(http, `only@${adminDomain}`);
    const refused = await http.delete(`/v1/admins/${only.adminId}`);
    expect({ status: refused.status, message: refused.body.message }).toEqual({
      status: 409,
      message: 'ADMIN_LAST_CODE_RECIPIENT',
    });

    const unexpected = await addAdmin(http, `mallory@${adminDomain}`);
    expect((await http.delete(`/v1/admins/${unexpected.adminId}`)).status).toBe(204);
    expect((await http.get('/v1/admins')).body.map((admin: Admin) => admin.adminId)).toEqual([only.adminId]);
    // The one thrown out was told too, and so was the administrator who stayed.
    const removed = await noticesAbout(http, unexpected, 'administrator_removed', 2);
    expect(removed.map((entry) => entry.to).sort()).toEqual([masked(unexpected.email), masked(only.email)].sort());
  });
});
