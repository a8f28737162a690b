// Proves the sender against a real local HTTPS server: it POSTs the exact body
// and headers, reports 2xx/3xx/5xx without following redirects, reads at most
// 4 KiB, bounds the attempt with its timeout, classifies connection and TLS
// failures, and refuses (without connecting) any URL or resolved address the
// SSRF rules forbid, connecting only to the addresses it checked; keeps one
// connection alive per endpoint and checked address set, reuses it only for an
// attempt whose fresh check gave that same set, and goes over a fresh connection
// when a reused one turns out closed.
// A throw-away self-signed certificate for localhost is made with the openssl CLI.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpsWebhookSender, ResolveAll } from './https-webhook-sender';

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let dir: string;
let cert: Buffer;
let server: Server;
let port: number;
let handler: (req: IncomingMessage, res: ServerResponse) => void;
const received: Received[] = [];
/** TLS handshakes the server completed: one per connection. */
let connections = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhook-sender-spec-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(join(dir, 'cert.pem'));
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      handler(req, res);
    });
  });
  server.on('secureConnection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  received.length = 0;
  connections = 0;
  handler = (_req, res) => res.writeHead(200).end('ok');
});

const localhostOnly: ResolveAll = async () => [{ address: '127.0.0.1', family: 4 }];
const sandboxSender = (overrides: Partial<ConstructorParameters<typeof HttpsWebhookSender>[0]> = {}) =>
  new HttpsWebhookSender({ mode: 'sandbox', ca: cert, resolveAll: localhostOnly, ...overrides });
const body = '{"id":"e1","type":"credit.received","createdAt":"2026-01-01T00:00:00.000Z","data":{}}';
const headers = { 'Content-Type': 'application/json', 'X-Service-Delivery': 'd-1', 'X-Service-Signature': 'v1=abc' };
const url = () => `https://localhost:${port}/webhooks?x=1`;

describe('HttpsWebhookSender', () => {
  it('POSTs the exact body and headers and reports a 2xx', async () => {
    handler = (_req, res) => res.writeHead(204).end();
    const result = await sandboxSender().send({ url: url(), headers, body });
    expect(result).toMatchObject({ kind: 'response', statusCode: 204 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', path: '/webhooks?x=1', body });
    expect(received[0]?.headers).toMatchObject({
      host: `localhost:${port}`,
      'x-service-delivery': 'd-1',
      'x-service-signature': 'v1=abc',
    });
  });

  it('does not follow a redirect', async () => {
    handler = (_req, res) => res.writeHead(302, { Location: `https://localhost:${port}/elsewhere` }).end();
    const result = await sandboxSender().send({ url: url(), headers, body });
    expect(result).toMatchObject({ kind: 'response', statusCode: 302 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received.map((request) => request.path)).toEqual(['/webhooks?x=1']);
  });

  it('reports the status, Retry-After and an excerpt of a failure answer', async () => {
    handler = (_req, res) => res.writeHead(503, { 'Retry-After': '120' }).end('busy, come back later');
    const result = await sandboxSender().send({ url: url(), headers, body });
    expect(result).toMatchObject({
      kind: 'response',
      statusCode: 503,
      retryAfter: '120',
      responseExcerpt: 'busy, come back later',
    });
  });

  it('reads at most 4 KiB of a large answer and keeps 512 bytes', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      for (let index = 0; index < 64; index += 1) res.write(chunk);
      res.end();
    };
    const result = await sandboxSender().send({ url: url(), headers, body });
    expect(result).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(result.kind === 'response' && Buffer.byteLength(result.responseExcerpt)).toBe(512);
  });

  it('gives up on an endpoint that never answers within the timeout', async () => {
    handler = () => undefined; // never answers
    const result = await sandboxSender({ timeoutMs: 300 }).send({ url: url(), headers, body });
    expect(result).toMatchObject({ kind: 'failure', errorClass: 'timeout' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(2_000);
  });

  it('classifies a refused connection', async () => {
    const result = await sandboxSender().send({ url: 'https://localhost:1/webhooks', headers, body });
    expect(result).toMatchObject({ kind: 'failure', errorClass: 'connection' });
  });

  it('classifies an untrusted certificate as tls', async () => {
    const result = await new HttpsWebhookSender({ mode: 'sandbox', resolveAll: localhostOnly }).send({
      url: url(),
      headers,
      body,
    });
    expect(result).toMatchObject({ kind: 'failure', errorClass: 'tls' });
    expect(received).toHaveLength(0);
  });

  it('classifies a lookup failure as dns', async () => {
    const failing: ResolveAll = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const result = await sandboxSender({ resolveAll: failing }).send({
      url: 'https://hooks.example.com/',
      headers,
      body,
    });
    expect(result).toMatchObject({ kind: 'failure', errorClass: 'dns' });
  });

  it('refuses loopback in production without connecting', async () => {
    const production = new HttpsWebhookSender({ mode: 'production', ca: cert, resolveAll: localhostOnly });
    for (const target of [
      `https://127.0.0.1:${port}/`,
      `https://localhost:${port}/`,
      `https://[::ffff:127.0.0.1]:${port}/`,
    ]) {
      expect(await production.send({ url: target, headers, body })).toMatchObject({
        kind: 'failure',
        errorClass: 'ssrf_refused',
      });
    }
    expect(received).toHaveLength(0);
  });

  it('refuses a public name that resolves to a refused address (checked at every attempt)', async () => {
    let answer = [
      { address: '8.8.8.8', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const resolveAll: ResolveAll = async () => answer;
    const production = new HttpsWebhookSender({ mode: 'production', resolveAll });
    expect(await production.send({ url: 'https://hooks.example.com/', headers, body })).toMatchObject({
      kind: 'failure',
      errorClass: 'ssrf_refused',
    });
    answer = [{ address: '169.254.169.254', family: 4 }];
    expect(await production.send({ url: 'https://hooks.example.com/', headers, body })).toMatchObject({
      kind: 'failure',
      errorClass: 'ssrf_refused',
    });
    // Sandbox mode allows loopback, but still not the metadata address.
    expect(
      await sandboxSender({ resolveAll }).send({ url: 'https://hooks.example.com/', headers, body }),
    ).toMatchObject({ errorClass: 'ssrf_refused' });
  });

  it('connects to the checked address while keeping the URL host for TLS', async () => {
    // `.invalid` never resolves in real DNS; here it "resolves" to 127.0.0.1, so reaching
    // the server proves the socket used the checked address. The certificate is for
    // localhost, so the TLS name check fails: proof that SNI is the URL host, not the address.
    const result = await sandboxSender().send({ url: `https://hooks.example.invalid:${port}/`, headers, body });
    expect(result).toMatchObject({ kind: 'failure', errorClass: 'tls' });
    expect(result.kind === 'failure' && result.detail).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID/);
  });

  it('falls back across the checked addresses (::1 refused, 127.0.0.1 answers)', async () => {
    const bothFamilies: ResolveAll = async () => [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ];
    const result = await sandboxSender({ resolveAll: bothFamilies }).send({ url: url(), headers, body });
    expect(result).toMatchObject({ kind: 'response', statusCode: 200 });
  });

  it('stops at once when aborted', async () => {
    handler = () => undefined;
    const controller = new AbortController();
    const sending = sandboxSender().send({ url: url(), headers, body, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const startedMs = Date.now();
    expect(await sending).toMatchObject({ kind: 'failure' });
    expect(Date.now() - startedMs).toBeLessThan(2_000);
  });

  it('refuses a URL that is not https', async () => {
    expect(await sandboxSender().send({ url: `http://localhost:${port}/`, headers, body })).toMatchObject({
      kind: 'failure',
      errorClass: 'invalid_url',
    });
  });

  it('keeps the connection alive: attempts to one endpoint share one TLS handshake', async () => {
    const sender = sandboxSender();
    for (let index = 0; index < 5; index += 1)
      expect(await sender.send({ url: url(), headers, body })).toMatchObject({ statusCode: 200 });
    expect(received).toHaveLength(5);
    expect(connections).toBe(1);
    expect(sender.idleConnectionCount()).toBe(1);
  });

  it('checks every attempt before any pooled connection is used, and pools per checked address set', async () => {
    let answer = [{ address: '127.0.0.1', family: 4 }];
    const sender = sandboxSender({ resolveAll: async () => answer });
    expect(await sender.send({ url: url(), headers, body })).toMatchObject({ statusCode: 200 });
    // The name now points at the metadata address: refused before anything is sent, pooled connection or not.
    answer = [{ address: '169.254.169.254', family: 4 }];
    expect(await sender.send({ url: url(), headers, body })).toMatchObject({
      kind: 'failure',
      errorClass: 'ssrf_refused',
    });
    expect(received).toHaveLength(1);
    // Another allowed address set is another pool: a new connection, opened to the addresses just checked.
    answer = [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect(await sender.send({ url: url(), headers, body })).toMatchObject({ statusCode: 200 });
    expect(connections).toBe(2);
    // The first set again: its idle connection is reused.
    answer = [{ address: '127.0.0.1', family: 4 }];
    expect(await sender.send({ url: url(), headers, body })).toMatchObject({ statusCode: 200 });
    expect(connections).toBe(2);
    expect(received).toHaveLength(3);
  });

  it('goes over a fresh connection, within the attempt, when the reused one was closed by the server', async () => {
    const sender = sandboxSender();
    expect(await sender.send({ url: url(), headers, body })).toMatchObject({ statusCode: 200 });
    // The server drops the kept-alive connection the moment the next request arrives on it.
    handler = (req, res) => {
      if (received.length === 2) req.socket.destroy();
      else res.writeHead(200).end('ok');
    };
    expect(await sender.send({ url: url(), headers, body })).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(received).toHaveLength(3);
    expect(connections).toBe(2);
  });

  it('does not keep a connection whose answer was too long to read', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(64 * 1024, 'x'));
    };
    const sender = sandboxSender();
    await sender.send({ url: url(), headers, body });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sender.idleConnectionCount()).toBe(0);
  });
});
