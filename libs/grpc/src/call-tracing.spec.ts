// Proves a trace crosses a gRPC call: the caller's span is the parent of the
// client's span, whose traceparent travels in the metadata and is the parent of
// the server's span, in which the handler runs (its active traceparent names
// the same trace); a refusal ends both spans as failed. Real server and client
// over mutual TLS on this machine, spans captured by an in-process exporter.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { notifier } from '@platform/proto';
import { contextFromTraceparent, currentTraceparent, inSpan, SpanKind, startTracing } from '@platform/tracing';
import { createClient } from './client';
import { createGrpcServer, GrpcServer } from './server';
import { TestCertificateAuthority } from './testing/test-certificates';
import { TlsMaterial } from './tls';

const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
(silent as unknown as { child: () => Logger }).child = () => silent;

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = `00-${CALLER_TRACE}-00f067aa0ba902b7-01`;
const METHOD = 'notifier.v1.Notifier/SendMessage';
const request = {
  idempotencyKey: 'k',
  partnerId: 'p',
  kind: 'wallet_approval',
  recipient: 'a@example.com',
  subjectType: 'wallet',
  subjectId: 's',
  variables: {},
};

const finished: ReadableSpan[] = [];
const exporter: SpanExporter = {
  export: (spans, done) => {
    finished.push(...spans);
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};
const tracing = startTracing({ service: 'call-tracing-spec', exporter });

let dir: string;
let server: GrpcServer;
let client: ReturnType<typeof createClient<typeof notifier.NotifierService>>;
const opened: Array<{ close(): void }> = [];
const seenByHandler: Array<string | null> = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'call-tracing-spec-'));
  const authority = TestCertificateAuthority.create(path.join(dir, 'ca'));
  const tlsOf = (identity: string) => {
    const tls = new TlsMaterial(authority.issue(identity), { logger: silent, expectedIdentity: identity });
    opened.push(tls);
    return tls;
  };
  server = createGrpcServer(silent, tlsOf('notifier'));
  server.add(
    notifier.NotifierService,
    {
      sendMessage: async (received) => {
        seenByHandler.push(currentTraceparent());
        if (received.idempotencyKey === 'refused') throw new AppError('VALIDATION_FAILED');
        return { messageId: 'm-1', maskedRecipient: 'a***@example.com', replayed: false };
      },
    },
    { sendMessage: ['payouts'] },
  );
  const port = await server.listen(0);
  client = createClient(notifier.NotifierService, {
    upstream: 'notifier',
    address: `127.0.0.1:${port}`,
    logger: silent,
    tls: tlsOf('payouts').client('notifier'),
    deadlineMs: 2_000,
  });
  opened.push(client);
});

afterAll(async () => {
  await server.shutdown(0);
  for (const item of opened) item.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The spans of one method call, by kind, once exported. */
async function spansOf(kind: SpanKind): Promise<ReadableSpan[]> {
  await tracing.shutdown();
  return finished.filter((span) => span.name === METHOD && span.kind === kind);
}

it("continues the caller's trace through the client span to the server span the handler runs in", async () => {
  await inSpan('caller', { kind: SpanKind.INTERNAL, parent: contextFromTraceparent(CALLER) }, async () => {
    await client.sendMessage(request);
    await expect(client.sendMessage({ ...request, idempotencyKey: 'refused' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
  const [clientOk, clientRefused] = await spansOf(SpanKind.CLIENT);
  const caller = finished.find((span) => span.name === 'caller');
  const [serverOk, serverRefused] = await spansOf(SpanKind.SERVER);
  for (const span of [clientOk, clientRefused, serverOk, serverRefused])
    expect(span.spanContext().traceId).toBe(CALLER_TRACE);
  expect(clientOk.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
  expect(serverOk.parentSpanContext?.spanId).toBe(clientOk.spanContext().spanId);
  expect(serverRefused.parentSpanContext?.spanId).toBe(clientRefused.spanContext().spanId);
  expect(seenByHandler[0]).toBe(`00-${CALLER_TRACE}-${serverOk.spanContext().spanId}-01`);
  expect(serverOk.attributes).toMatchObject({
    'rpc.system': 'grpc',
    'rpc.service': 'notifier.v1.Notifier',
    'rpc.method': 'SendMessage',
    'rpc.grpc.status_code': 0,
  });
  expect(serverOk.status.code).toBe(SpanStatusCode.UNSET);
  expect(serverRefused.status).toEqual({ code: SpanStatusCode.ERROR, message: 'INVALID_ARGUMENT' });
  expect(clientRefused.status).toEqual({ code: SpanStatusCode.ERROR, message: 'INVALID_ARGUMENT' });
});
