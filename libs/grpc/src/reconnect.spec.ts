// Proves a client reaches a restarted upstream soon after it is back, however
// long it was down: the channel's reconnect backoff is capped, so a caller does
// not keep failing fast for tens of seconds after its peer has recovered (the
// gRPC default backoff grows to two minutes while the peer is away).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '@platform/logger';
import { notifier } from '@platform/proto';
import { createClient } from './client';
import { createGrpcServer, GrpcServer } from './server';
import { TestCertificateAuthority } from './testing/test-certificates';
import { TlsMaterial } from './tls';

const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
(silent as unknown as { child: () => Logger }).child = () => silent;

/** Long enough for the default backoff to have grown past several seconds. */
const DOWN_MS = 10_000;
const CALL_EVERY_MS = 100;
const CALL_DEADLINE_MS = 1_000;
/** The capped backoff (under a second, with jitter) plus a handshake, with room for a loaded machine. */
const BACK_WITHIN_MS = 4_000;

const request = {
  idempotencyKey: 'k',
  partnerId: 'p',
  kind: 'wallet_approval',
  recipient: 'a@example.com',
  subjectType: 'wallet',
  subjectId: 's',
  variables: {},
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
const opened: Array<{ close(): void }> = [];

function startServer(serverTls: TlsMaterial, port: number): Promise<{ server: GrpcServer; port: number }> {
  const server = createGrpcServer(silent, serverTls);
  server.add(
    notifier.NotifierService,
    {
      sendMessage: async () => ({ messageId: 'm-1', maskedRecipient: 'a***@example.com', replayed: false }),
    },
    { sendMessage: ['payouts'] },
  );
  return server.listen(port).then((bound) => ({ server, port: bound }));
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'reconnect-spec-'));
});

afterAll(() => {
  for (const item of opened) item.close();
  rmSync(dir, { recursive: true, force: true });
});

it('calls a restarted upstream successfully within seconds of its return, after a long absence', async () => {
  const authority = TestCertificateAuthority.create(path.join(dir, 'ca'));
  const serverTls = new TlsMaterial(authority.issue('notifier'), { logger: silent, expectedIdentity: 'notifier' });
  const clientTls = new TlsMaterial(authority.issue('payouts'), { logger: silent, expectedIdentity: 'payouts' });
  opened.push(serverTls, clientTls);
  const first = await startServer(serverTls, 0);
  // The breaker never opens here: this measures the channel alone.
  const caller = createClient(notifier.NotifierService, {
    upstream: 'notifier',
    address: `127.0.0.1:${first.port}`,
    logger: silent,
    tls: clientTls.client('notifier'),
    deadlineMs: CALL_DEADLINE_MS,
    volumeThreshold: 1_000_000,
  });
  opened.push(caller);
  await expect(caller.sendMessage(request)).resolves.toMatchObject({ messageId: 'm-1' });

  await first.server.shutdown(0);
  const downUntil = Date.now() + DOWN_MS;
  let failedWhileDown = 0;
  while (Date.now() < downUntil) {
    await caller.sendMessage(request).then(
      () => undefined,
      () => {
        failedWhileDown += 1;
      },
    );
    await sleep(CALL_EVERY_MS);
  }
  expect(failedWhileDown).toBeGreaterThan(0);

  const second = await startServer(serverTls, first.port);
  const backAt = Date.now();
  let answeredAfterMs: number | null = null;
  while (answeredAfterMs === null && Date.now() - backAt < 4 * BACK_WITHIN_MS) {
    const answered = await caller.sendMessage(request).then(
      () => true,
      () => false,
    );
    if (answered) answeredAfterMs = Date.now() - backAt;
    else await sleep(CALL_EVERY_MS);
  }
  await second.server.shutdown(0);
  expect(answeredAfterMs).not.toBeNull();
  expect(answeredAfterMs!).toBeLessThan(BACK_WITHIN_MS);
}, 60_000);
