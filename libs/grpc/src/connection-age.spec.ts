// Proves that a server keeps no peer's connection past its age, so the identity a
// peer proved at its handshake is checked again: a CA is rotated (the old CA dropped
// from the server's trusted bundle) while two clients hold open connections.
// - Without an age bound (a second server, the default half hour) the client whose
//   certificate is from the dropped CA keeps being served over its old connection:
//   the weakness the bound closes.
// - With a one-second age, that client is refused once its connection has been
//   closed (age, jitter and grace past), and never reaches the handler again.
// - The client whose certificate was rotated to the new CA by file replacement
//   keeps being served: its new connection presents the new certificate.
// - The age is bounded: a server cannot be configured to keep connections longer
//   than an hour.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '@platform/logger';
import { notifier } from '@platform/proto';
import { createClient, PromiseClient } from './client';
import { createGrpcServer, GrpcServer } from './server';
import { IssuedCertificate, TestCertificateAuthority } from './testing/test-certificates';
import { ConnectionAge, CONNECTION_AGE_MS_MAX, TlsMaterial } from './tls';

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as unknown as Logger;
(silent as unknown as { child: () => Logger }).child = () => silent;

/** The test reloads the files itself (reloadIfChanged); the timers stay out of its way. */
const RELOAD_INTERVAL_MS = 60_000;
const CALL_DEADLINE_MS = 3_000;
const AGE: ConnectionAge = { maxMs: 1_000, graceMs: 500 };
/** grpc-js adds up to 10 % of the age as jitter before it sends GOAWAY. */
const CONNECTION_CLOSED_WITHIN_MS = AGE.maxMs * 1.1 + AGE.graceMs;
const request = {
  idempotencyKey: 'k',
  partnerId: 'p',
  kind: 'wallet_approval',
  recipient: 'a@example.com',
  subjectType: 'wallet',
  subjectId: 's',
  variables: {},
};

let dir: string;
let oldCa: TestCertificateAuthority;
let newCa: TestCertificateAuthority;
let bothCaFile: string;
let serverFiles: IssuedCertificate;
const servers: GrpcServer[] = [];
const opened: Array<{ close(): void }> = [];
const served: string[] = [];

function material(files: IssuedCertificate, connectionAge?: ConnectionAge): TlsMaterial {
  const made = new TlsMaterial(files, { logger: silent, reloadIntervalMs: RELOAD_INTERVAL_MS, connectionAge });
  opened.push(made);
  return made;
}

async function startServer(name: string, tls: TlsMaterial): Promise<number> {
  const server = createGrpcServer(silent, tls);
  server.add(
    notifier.NotifierService,
    {
      sendMessage: async () => {
        served.push(name);
        return { messageId: 'm-1', maskedRecipient: 'a***@example.com', replayed: false };
      },
    },
    { sendMessage: ['payouts', 'wallet-registry'] },
  );
  servers.push(server);
  return server.listen(0);
}

function client(tls: TlsMaterial, port: number): PromiseClient<typeof notifier.NotifierService> {
  const made = createClient(notifier.NotifierService, {
    upstream: 'notifier',
    address: `127.0.0.1:${port}`,
    logger: silent,
    tls: tls.client('notifier'),
    deadlineMs: CALL_DEADLINE_MS,
  });
  opened.push(made);
  return made;
}

/** Resolves to 'served' or the AppError code the call failed with. */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'served';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** Replaces a certificate and key as a rotation does: key first, then certificate, each atomically. */
function replaceFiles(target: IssuedCertificate, next: IssuedCertificate): void {
  renameSync(next.keyFile, target.keyFile);
  renameSync(next.certFile, target.certFile);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'connection-age-spec-'));
  oldCa = TestCertificateAuthority.create(path.join(dir, 'old-ca'), 'Old CA');
  newCa = TestCertificateAuthority.create(path.join(dir, 'new-ca'), 'New CA');
  bothCaFile = path.join(dir, 'both-ca.pem');
  writeFileSync(bothCaFile, Buffer.concat([readFileSync(oldCa.caFile), readFileSync(newCa.caFile)]));
  // The server's own certificate is from the new CA; it trusts both CAs until the old one is dropped.
  const issued = newCa.issue('notifier');
  serverFiles = { ...issued, caFile: path.join(dir, 'server-ca.pem') };
  writeFileSync(serverFiles.caFile, readFileSync(bothCaFile));
});

afterAll(async () => {
  for (const item of opened) item.close();
  await Promise.all(servers.map((server) => server.shutdown(1_000)));
  rmSync(dir, { recursive: true, force: true });
});

it('closes connections past their age, so a peer from a dropped CA is refused and a rotated peer is served', async () => {
  const agedTls = material(serverFiles, AGE);
  const unboundedTls = material(serverFiles);
  const agedPort = await startServer('aged', agedTls);
  const unboundedPort = await startServer('unbounded', unboundedTls);
  const staleTls = material({ ...oldCa.issue('payouts'), caFile: bothCaFile });
  const rotatingFiles = { ...oldCa.issue('wallet-registry'), caFile: bothCaFile };
  const rotatingTls = material(rotatingFiles);
  const staleOnAged = client(staleTls, agedPort);
  const staleOnUnbounded = client(staleTls, unboundedPort);
  const rotating = client(rotatingTls, agedPort);

  // Connections open while both CAs are trusted.
  const openedAtMs = Date.now();
  expect(
    await Promise.all([
      outcome(staleOnAged.sendMessage(request)),
      outcome(staleOnUnbounded.sendMessage(request)),
      outcome(rotating.sendMessage(request)),
    ]),
  ).toEqual(['served', 'served', 'served']);

  // The rotating client gets a certificate from the new CA; then both servers drop the old CA.
  replaceFiles(rotatingFiles, newCa.issue('wallet-registry', { name: 'wallet-registry-next' }));
  expect(rotatingTls.reloadIfChanged()).toBe(true);
  writeFileSync(`${serverFiles.caFile}.next`, readFileSync(newCa.caFile));
  renameSync(`${serverFiles.caFile}.next`, serverFiles.caFile);
  expect([agedTls.reloadIfChanged(), unboundedTls.reloadIfChanged()]).toEqual([true, true]);

  // Past the age (with jitter and grace) every connection the aged server had open is closed.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, openedAtMs + CONNECTION_CLOSED_WITHIN_MS + 500 - Date.now())),
  );
  const servedBefore = served.filter((name) => name === 'aged').length;
  expect(await outcome(staleOnAged.sendMessage(request))).toBe('SERVICE_UNAVAILABLE');
  expect(served.filter((name) => name === 'aged').length).toBe(servedBefore);
  expect(await outcome(rotating.sendMessage(request))).toBe('served');
  // Without the bound the dropped CA's certificate is still served, over the connection it opened before.
  expect(await outcome(staleOnUnbounded.sendMessage(request))).toBe('served');
});

it('refuses a connection age above the bound', () => {
  expect(() => material(serverFiles, { maxMs: CONNECTION_AGE_MS_MAX + 1, graceMs: 1_000 })).toThrow(RangeError);
  expect(() => material(serverFiles, { maxMs: 1_000, graceMs: 0 })).toThrow(RangeError);
  expect(material(serverFiles).connectionAge).toEqual({ maxMs: 30 * 60_000, graceMs: 30_000 });
});
