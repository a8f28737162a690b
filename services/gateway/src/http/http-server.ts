/**
 * The HTTP listener around the app, with bounds on slow or oversized clients,
 * and the envelope even for requests Node refuses before Express sees them
 * (malformed HTTP, oversized headers).
 */
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { HTTP_REASON } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { BODY_BYTES_MAX } from '../config';
import { declaresMoreThan } from './middleware/raw-body.middleware';

const HEADER_BYTES_MAX = 16 * 1024;
/** A whole request (headers and body) must arrive within this. */
const REQUEST_TIMEOUT_MS = 30_000;
const HEADERS_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** A raw 400 envelope for a request Node could not parse; the socket is closed after it. */
function answerClientError(socket: Duplex): void {
  const requestId = randomUUID();
  const body = JSON.stringify({
    statusCode: 400,
    message: 'Validation failed on: request',
    error: HTTP_REASON[400],
    requestId,
  });
  socket.end(
    [
      'HTTP/1.1 400 Bad Request',
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Cache-Control: no-store',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/** The responses each listener has not finished, so a drain can make them close their connection too. */
const responsesInFlight = new WeakMap<Server, Set<ServerResponse>>();

function trackResponses(server: Server): void {
  const responses = new Set<ServerResponse>();
  responsesInFlight.set(server, responses);
  // One listener function per server, not a closure per request: a response emits 'close' once.
  function forget(this: ServerResponse): void {
    responses.delete(this);
  }
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    responses.add(response);
    response.on('close', forget);
  });
}

/** Unless its head is out already (answers are one write, so rarely), the answer ends its connection. */
function closeAfterAnswer(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('Connection', 'close');
}

/** `reusePort`: share the port with other gateway processes on this machine (local replicas). */
export function listenHttp(
  app: Express,
  port: number,
  logger: Logger,
  host = '127.0.0.1',
  reusePort = false,
): Promise<Server> {
  const server = createServer(
    { maxHeaderSize: HEADER_BYTES_MAX, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS },
    app,
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  trackResponses(server);
  // Invite a body (100 Continue) only when it may be accepted; a declared oversize body
  // gets its 413 without being sent at all.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!declaresMoreThan(req, BODY_BYTES_MAX)) res.writeContinue();
    app(req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const parseError = typeof error.code === 'string' && error.code.startsWith('HPE_');
    if (parseError && socket.writable) {
      logger.info('malformed HTTP request refused', { parserError: error.code });
      answerClientError(socket);
      return;
    }
    socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, reusePort }, () => {
      server.off('error', reject);
      logger.info('http listening', { httpPort: port, httpHost: host, reusePort });
      resolve(server);
    });
  });
}

/**
 * How long a draining gateway keeps answering on its connections, each answer
 * ending its connection, before it stops listening. A client's keep-alive
 * connections then close after an answer, never under a request it is sending,
 * and it reconnects to another replica (in Kubernetes the Service has already
 * moved on; locally the replicas share the port).
 */
export const DRAIN_CONNECTION_CLOSE_MS = 500;

/** A readiness that the gateway's drain turns to not ready (adapters/readiness.ts). */
export interface DrainableReadiness {
  startDraining(): void;
}

/**
 * The gateway's drain, from the moment it reports NOT_SERVING: /healthz answers
 * 503 at once, so load balancers that probe it stop choosing this replica, while
 * the listener goes on answering (each answer closing its connection) and then
 * finishes its requests in flight (closeHttp).
 */
export async function drainHttp(
  server: Server | undefined,
  readiness: DrainableReadiness,
  graceMs: number,
): Promise<void> {
  readiness.startDraining();
  if (server) await closeHttp(server, graceMs);
}

/**
 * Drains: every answer from now on closes its connection, those of the requests
 * already in flight included; after DRAIN_CONNECTION_CLOSE_MS stops accepting and
 * closes the idle connections left, lets requests in flight finish within
 * graceMs, then cuts what is left.
 */
export async function closeHttp(server: Server, graceMs: number): Promise<void> {
  for (const response of responsesInFlight.get(server) ?? []) closeAfterAnswer(response);
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) =>
    closeAfterAnswer(response),
  );
  await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_CONNECTION_CLOSE_MS, graceMs)));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
