// Proves every call through createGrpcServer and createClient is counted and timed
// on both sides by service, method and status code: a success (OK), a refusal
// (its catalogue status), a caller outside the allow-list (PERMISSION_DENIED,
// before the handler); that a client counts an unreachable upstream (UNAVAILABLE);
// and that its breaker reports open, and the calls it refused unsent. Real
// servers and clients over mutual TLS on this machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { metricsRegistry } from '@platform/metrics';
import { notifier } from '@platform/proto';
import { callLabels, codeName } from './call-metrics';
import { createClient } from './client';
import { createGrpcServer, GrpcServer } from './server';
import { TestCertificateAuthority } from './testing/test-certificates';
import { TlsMaterial } from './tls';

const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
(silent as unknown as { child: () => Logger }).child = () => silent;

const request = {
  idempotencyKey: 'k',
  partnerId: 'p',
  kind: 'wallet_approval',
  recipient: 'a@example.com',
  subjectType: 'wallet',
  subjectId: 's',
  variables: {},
};
const SEND = callLabels(notifier.NotifierService.sendMessage.path);

let dir: string;
let authority: TestCertificateAuthority;
let server: GrpcServer;
let port: number;
const opened: Array<{ close(): void }> = [];

function tlsOf(identity: string): TlsMaterial {
  const tls = new TlsMaterial(authority.issue(identity), { logger: silent, expectedIdentity: identity });
  opened.push(tls);
  return tls;
}

function clientAs(identity: string, address = `127.0.0.1:${port}`) {
  const client = createClient(notifier.NotifierService, {
    upstream: 'notifier',
    address,
    logger: silent,
    tls: tlsOf(identity).client('notifier'),
    deadlineMs: 2_000,
    volumeThreshold: 2,
    resetTimeoutMs: 60_000,
  });
  opened.push(client);
  return client;
}

async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  const found = metric?.values.find((value) =>
    Object.entries(labels).every(([key, expected]) => value.labels[key] === expected),
  );
  return found?.value ?? 0;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'call-metrics-spec-'));
  authority = TestCertificateAuthority.create(path.join(dir, 'ca'));
  server = createGrpcServer(silent, tlsOf('notifier'));
  let calls = 0;
  server.add(
    notifier.NotifierService,
    {
      // Every second call is refused as a healthy service refuses: a catalogue error.
      sendMessage: async () => {
        calls += 1;
        if (calls % 2 === 0) throw new AppError('VALIDATION_FAILED');
        return { messageId: 'm-1', maskedRecipient: 'a***@example.com', replayed: false };
      },
    },
    { sendMessage: ['payouts'] },
  );
  port = await server.listen(0);
});

afterAll(async () => {
  await server.shutdown(0);
  for (const item of opened) item.close();
  rmSync(dir, { recursive: true, force: true });
});

it('names codes as grpc-js does', () => {
  expect(codeName(0)).toBe('OK');
  expect(codeName(14)).toBe('UNAVAILABLE');
  expect(codeName(99)).toBe('99');
  expect(SEND).toEqual({ grpc_service: 'notifier.v1.Notifier', grpc_method: 'SendMessage' });
});

it('counts answers and refusals on the server and on the client, by status, and times them', async () => {
  const payouts = clientAs('payouts');
  await expect(payouts.sendMessage(request)).resolves.toMatchObject({ messageId: 'm-1' });
  await expect(payouts.sendMessage(request)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  for (const side of ['server', 'client']) {
    expect(await sample(`grpc_${side}_handled_total`, { ...SEND, grpc_code: 'OK' })).toBe(1);
    expect(await sample(`grpc_${side}_handled_total`, { ...SEND, grpc_code: 'INVALID_ARGUMENT' })).toBe(1);
    const histogram = await metricsRegistry.getSingleMetric(`grpc_${side}_handling_seconds`)?.get();
    const count = histogram?.values.find(
      (value) =>
        value.metricName === `grpc_${side}_handling_seconds_count` && value.labels.grpc_method === 'SendMessage',
    );
    expect(count?.value).toBe(2);
  }
});

it('counts a caller outside the allow-list as PERMISSION_DENIED on both sides', async () => {
  const gateway = clientAs('gateway');
  await expect(gateway.sendMessage(request)).rejects.toBeDefined();
  expect(await sample('grpc_server_handled_total', { ...SEND, grpc_code: 'PERMISSION_DENIED' })).toBe(1);
  expect(await sample('grpc_client_handled_total', { ...SEND, grpc_code: 'PERMISSION_DENIED' })).toBe(1);
});

it('counts an unreachable upstream as UNAVAILABLE, then its breaker open and the calls it refused', async () => {
  const spare = createGrpcServer(silent, tlsOf('notifier'));
  const deadPort = await spare.listen(0);
  await spare.shutdown(0);
  const payouts = clientAs('payouts', `127.0.0.1:${deadPort}`);
  for (let attempt = 0; attempt < 4; attempt += 1) await payouts.sendMessage(request).catch(() => undefined);
  expect(await sample('grpc_client_handled_total', { ...SEND, grpc_code: 'UNAVAILABLE' })).toBeGreaterThanOrEqual(2);
  expect(await sample('circuit_breaker_state', { upstream: 'notifier', state: 'open' })).toBe(1);
  expect(await sample('circuit_breaker_transitions_total', { upstream: 'notifier', to: 'open' })).toBe(1);
  expect(await sample('circuit_breaker_rejected_calls_total', { upstream: 'notifier' })).toBeGreaterThanOrEqual(1);
});

it('answers and counts a handler that throws before it returns a promise as one that rejects', async () => {
  const throwing = createGrpcServer(silent, tlsOf('notifier'));
  throwing.add(
    notifier.NotifierService,
    {
      sendMessage: (() => {
        throw new AppError('VALIDATION_FAILED');
      }) as never,
    },
    { sendMessage: ['payouts'] },
  );
  const throwingPort = await throwing.listen(0);
  try {
    const refused = { ...SEND, grpc_code: 'INVALID_ARGUMENT' };
    const before = await sample('grpc_server_handled_total', refused);
    await expect(clientAs('payouts', `127.0.0.1:${throwingPort}`).sendMessage(request)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect(await sample('grpc_server_handled_total', refused)).toBe(before + 1);
  } finally {
    await throwing.shutdown(0);
  }
});
