// Proves service identity over gRPC, against a real server on a loopback port
// with certificates made by openssl for each test file:
// - a caller with an allowed identity is served, and its identity is in the
//   handler's request context; a connection's certificate is read once, on
//   its first call, not on every call;
// - a caller with another platform identity gets PERMISSION_DENIED, and the
//   server logs one structured security line naming caller and method;
// - a caller with no certificate, with a certificate from another CA, or with
//   an expired certificate never reaches a handler;
// - a client refuses a server that presents another identity than expected;
// - the server's certificate and its trusted CA rotate by replacing the files,
//   with no restart: new connections use the new material;
// - unusable files are refused at start, and ignored (previous kept, warning
//   logged) when they appear on reload;
// - the plaintext health port serves grpc.health.v1 and nothing else.
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { connect, TLSSocket } from 'node:tls';
import path from 'node:path';
import { ChannelCredentials, credentials, status } from '@grpc/grpc-js';
import { currentContext, recordingLogger } from '@platform/logger';
import { notifier } from '@platform/proto';
import { createClient, PromiseClient } from './client';
import { checkHealth } from './health';
import { createGrpcServer, GrpcServer } from './server';
import { rawCallStatus } from './testing/raw-call';
import { IssuedCertificate, TestCertificateAuthority } from './testing/test-certificates';
import { TlsMaterial, TlsMaterialError } from './tls';

const RELOAD_INTERVAL_MS = 100;
const CALL_DEADLINE_MS = 3_000;
let dir: string;
let authority: TestCertificateAuthority;
let otherAuthority: TestCertificateAuthority;
/** Both CAs: what a client from the other CA trusts, so that it can at least verify the server. */
let bothCaFile: string;
let serverFiles: IssuedCertificate;
let server: GrpcServer;
let serverTls: TlsMaterial;
let serverLog: ReturnType<typeof recordingLogger>;
let port: number;
let healthPort: number;
const callers: string[] = [];
const opened: Array<{ close(): void }> = [];

function material(files: IssuedCertificate, expectedIdentity?: string): TlsMaterial {
  const made = new TlsMaterial(files, {
    logger: recordingLogger().logger,
    reloadIntervalMs: RELOAD_INTERVAL_MS,
    expectedIdentity,
  });
  opened.push(made);
  return made;
}

function notifierClient(tls: TlsMaterial, serverIdentity = 'notifier'): PromiseClient<typeof notifier.NotifierService> {
  const client = createClient(notifier.NotifierService, {
    upstream: 'notifier',
    address: `127.0.0.1:${port}`,
    logger: recordingLogger().logger,
    tls: tls.client(serverIdentity),
    deadlineMs: CALL_DEADLINE_MS,
  });
  opened.push(client);
  return client;
}

const request = {
  idempotencyKey: 'k',
  partnerId: 'p',
  kind: 'wallet_approval',
  recipient: 'a@example.com',
  subjectType: 'wallet',
  subjectId: 's',
  variables: {},
};

/** SendMessage on a raw channel with these credentials: the gRPC status code (0 when it succeeded). */
const sendMessageStatus = (channelCredentials: ChannelCredentials) =>
  rawCallStatus(
    {
      address: `127.0.0.1:${port}`,
      credentials: channelCredentials,
      serverName: 'notifier',
      deadlineMs: CALL_DEADLINE_MS,
    },
    notifier.NotifierService.sendMessage,
    request,
  );

const reloads = () => serverLog.lines.filter((line) => line.message === 'tls material reloaded').length;

async function waitUntil(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const fingerprintOf = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mtls-spec-'));
  authority = TestCertificateAuthority.create(path.join(dir, 'ca'));
  otherAuthority = TestCertificateAuthority.create(path.join(dir, 'other-ca'), 'Other CA');
  bothCaFile = path.join(dir, 'both-ca.pem');
  writeFileSync(bothCaFile, Buffer.concat([readFileSync(authority.caFile), readFileSync(otherAuthority.caFile)]));
  serverFiles = authority.issue('notifier');
  serverLog = recordingLogger();
  serverTls = new TlsMaterial(serverFiles, {
    logger: serverLog.logger,
    reloadIntervalMs: RELOAD_INTERVAL_MS,
    expectedIdentity: 'notifier',
  });
  opened.push(serverTls);
  server = createGrpcServer(serverLog.logger, serverTls);
  server.add(
    notifier.NotifierService,
    {
      sendMessage: async () => {
        callers.push(currentContext().caller ?? 'none');
        return { messageId: 'm-1', maskedRecipient: 'a***@example.com', replayed: false };
      },
    },
    { sendMessage: ['payouts', 'wallet-registry'] },
  );
  port = await server.listen(0);
  healthPort = await server.listenHealth(0);
  server.health.setServing(true);
});

afterAll(async () => {
  for (const item of opened) item.close();
  await server.shutdown(1_000);
  rmSync(dir, { recursive: true, force: true });
});

describe('per-method allow-lists', () => {
  it('serves an allowed caller and tells the handler who it is', async () => {
    const client = notifierClient(material(authority.issue('payouts')));
    await expect(client.sendMessage(request)).resolves.toMatchObject({ messageId: 'm-1' });
    expect(callers[callers.length - 1]).toBe('payouts');
  });

  it("reads a connection's certificate once, on its first call, and knows the caller on every call after", async () => {
    const client = notifierClient(material(authority.issue('wallet-registry')));
    await client.sendMessage(request);
    const reads = jest.spyOn(TLSSocket.prototype, 'getPeerCertificate');
    try {
      for (let call = 0; call < 3; call += 1) await client.sendMessage(request);
      expect(reads).not.toHaveBeenCalled();
      expect(callers.slice(-3)).toEqual(['wallet-registry', 'wallet-registry', 'wallet-registry']);
    } finally {
      reads.mockRestore();
    }
  });

  it('refuses another platform identity with PERMISSION_DENIED and logs one security line', async () => {
    const gatewayTls = material(authority.issue('gateway'));
    const before = serverLog.lines.length;
    const code = await sendMessageStatus(gatewayTls.client('notifier').credentials as never);
    expect(code).toBe(status.PERMISSION_DENIED);
    const refusals = serverLog.lines.slice(before).filter((line) => line.fields.event === 'grpc.permission_denied');
    expect(refusals).toEqual([
      {
        level: 'warn',
        message: 'gRPC call refused: caller not allowed',
        fields: { event: 'grpc.permission_denied', method: '/notifier.v1.Notifier/SendMessage', caller: 'gateway' },
      },
    ]);
  });

  it('refuses to register a service without an entry for every method', () => {
    const other = createGrpcServer(recordingLogger().logger, serverTls);
    expect(() =>
      other.add(
        notifier.NotifierService,
        { sendMessage: async () => ({ messageId: '', maskedRecipient: '', replayed: false }) },
        {} as never,
      ),
    ).toThrow(/no entry for sendMessage/);
  });
});

describe('who never reaches a handler', () => {
  it('a client without a certificate, or in plaintext', async () => {
    const calls = callers.length;
    expect(await sendMessageStatus(credentials.createSsl(readFileSync(authority.caFile)))).toBe(status.UNAVAILABLE);
    expect(await sendMessageStatus(credentials.createInsecure() as never)).toBe(status.UNAVAILABLE);
    expect(callers.length).toBe(calls);
  });

  it('a client whose certificate comes from another CA, even naming an allowed identity', async () => {
    const foreign = otherAuthority.issue('payouts');
    const calls = callers.length;
    const client = notifierClient(material({ ...foreign, caFile: bothCaFile }));
    await expect(client.sendMessage(request)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(callers.length).toBe(calls);
  });

  it('a client whose certificate expired (and a process refuses to start with one)', async () => {
    const expired = authority.issue('payouts', { days: -1, name: 'payouts-expired' });
    expect(() => material(expired)).toThrow(TlsMaterialError);
    const calls = callers.length;
    const code = await sendMessageStatus(
      credentials.createSsl(
        readFileSync(authority.caFile),
        readFileSync(expired.keyFile),
        readFileSync(expired.certFile),
      ),
    );
    expect(code).toBe(status.UNAVAILABLE);
    expect(callers.length).toBe(calls);
  });

  it('a server presenting another identity than the client expects is refused by the client', async () => {
    const client = notifierClient(material(authority.issue('payouts', { name: 'payouts-2' })), 'ledger');
    const calls = callers.length;
    await expect(client.sendMessage(request)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(callers.length).toBe(calls);
  });
});

describe('TLS material', () => {
  it('refuses at start a certificate that does not match its key, or names another identity', () => {
    const one = authority.issue('ledger', { name: 'ledger-a' });
    const two = authority.issue('ledger', { name: 'ledger-b' });
    expect(() => material({ ...one, keyFile: two.keyFile })).toThrow(/does not match the key/);
    expect(() => material(one, 'trading')).toThrow(/names ledger, not trading/);
  });

  it('rotates the server certificate by file replacement, without a restart', async () => {
    const seen: string[] = [];
    const watcher = material(authority.issue('payouts', { name: 'payouts-watch' }));
    const capture = () =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(
          {
            host: '127.0.0.1',
            port,
            servername: 'notifier',
            ALPNProtocols: ['h2'],
            ca: readFileSync(authority.caFile),
            cert: readFileSync(watcher.files.certFile),
            key: readFileSync(watcher.files.keyFile),
            checkServerIdentity: () => undefined,
          },
          () => {
            resolve(socket.getPeerCertificate().fingerprint256);
            socket.end();
          },
        );
        socket.on('error', reject);
      });
    seen.push(await capture());
    expect(seen[0]).toBe(fingerprintOf(serverFiles.certFile));
    const next = authority.issue('notifier', { name: 'notifier-next' });
    const reloadsBefore = reloads();
    // As a rotation does: key first, then certificate, each replaced atomically.
    renameSync(next.keyFile, serverFiles.keyFile);
    renameSync(next.certFile, serverFiles.certFile);
    await waitUntil(() => reloads() > reloadsBefore);
    const rotated = await capture();
    expect(rotated).not.toBe(seen[0]);
    expect(rotated).toBe(fingerprintOf(serverFiles.certFile));
    // Clients keep working across the rotation.
    await expect(notifierClient(watcher).sendMessage(request)).resolves.toMatchObject({ messageId: 'm-1' });
  });

  it('takes a new trusted CA bundle without a restart', async () => {
    const newcomer = otherAuthority.issue('wallet-registry');
    const client = notifierClient(material({ ...newcomer, caFile: bothCaFile }));
    await expect(client.sendMessage(request)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // The server now trusts both CAs (a CA rotation's overlap).
    const reloadsBefore = reloads();
    copyFileSync(bothCaFile, `${serverFiles.caFile}.next`);
    renameSync(`${serverFiles.caFile}.next`, serverFiles.caFile);
    // The server's own timer notices the new file; no call makes it look.
    await waitUntil(() => reloads() > reloadsBefore);
    const fresh = notifierClient(material({ ...newcomer, caFile: bothCaFile }));
    await expect(fresh.sendMessage(request)).resolves.toMatchObject({ messageId: 'm-1' });
  });

  it('keeps the previous material when the new files are unusable, and says so once', () => {
    const files = authority.issue('collections', { name: 'collections-reload' });
    const log = recordingLogger();
    const tls = new TlsMaterial(files, { logger: log.logger, reloadIntervalMs: 60_000 });
    opened.push(tls);
    const before = tls.notAfter;
    const mismatched = authority.issue('collections', { name: 'collections-other' });
    renameSync(mismatched.keyFile, files.keyFile);
    expect(tls.reloadIfChanged()).toBe(false);
    expect(tls.reloadIfChanged()).toBe(false);
    expect(tls.notAfter).toEqual(before);
    expect(
      log.lines.filter((line) => line.message.startsWith('tls material changed')).map((line) => line.fields.reason),
    ).toEqual(['the certificate does not match the key']);
    renameSync(mismatched.certFile, files.certFile);
    expect(tls.reloadIfChanged()).toBe(true);
    expect(log.lines.some((line) => line.message === 'tls material reloaded')).toBe(true);
  });
});

describe('the plaintext health port', () => {
  it('answers grpc.health.v1 and serves nothing else', async () => {
    expect(await checkHealth(`127.0.0.1:${healthPort}`, CALL_DEADLINE_MS)).toBe(true);
    const code = await rawCallStatus(
      {
        address: `127.0.0.1:${healthPort}`,
        credentials: credentials.createInsecure(),
        serverName: 'notifier',
        deadlineMs: CALL_DEADLINE_MS,
      },
      notifier.NotifierService.sendMessage,
      request,
    );
    expect(code).toBe(status.UNIMPLEMENTED);
  });

  it('is not served in plaintext on the TLS port', async () => {
    expect(await checkHealth(`127.0.0.1:${port}`, CALL_DEADLINE_MS)).toBe(false);
    expect(
      await checkHealth(`127.0.0.1:${port}`, CALL_DEADLINE_MS, material(authority.issue('ops')).client('notifier')),
    ).toBe(true);
  });
});
