// Proves the gateway's drain over a real listener (listenHttp, port 0) with the stores faked:
// from the moment the drain starts, /healthz answers 503 (load balancers stop choosing this
// replica) while the gateway still answers new requests and the request in flight completes;
// every answer during the drain closes its connection, a client's idle keep-alive connection
// included, so the client reconnects elsewhere; and the drain ends only once the request in
// flight has been answered.
import { Agent, IncomingHttpHeaders, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createLogger } from '@platform/logger';
import { StoreReadiness } from '../adapters/readiness';
import { errorHandler } from './error-envelope';
import { drainHttp, listenHttp } from './http-server';
import { healthzHandler } from './routes/health.route';

const logger = createLogger('gateway-test');
logger.silent = true;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
}

function get(port: number, path: string, agent?: Agent): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the gateway draining', () => {
  let server: Server;
  let port: number;
  let releaseSlow: () => void;
  let slowEntered: Promise<void>;
  let readiness: StoreReadiness;

  beforeEach(async () => {
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    let entered = () => undefined as void;
    slowEntered = new Promise<void>((resolve) => (entered = resolve));
    readiness = new StoreReadiness(
      { ping: async () => 'PONG' } as never,
      { query: async () => [{ '?column?': 1 }] } as never,
    );
    const app = express();
    app.get('/healthz', healthzHandler(readiness));
    app.get('/slow', async (_req, res) => {
      entered();
      await slowGate;
      res.status(200).json({ done: true });
    });
    app.use(errorHandler(logger));
    server = await listenHttp(app, 0, logger);
    port = (server.address() as AddressInfo).port;
  });

  afterEach(() => {
    releaseSlow();
    server.closeAllConnections();
    server.close();
  });

  it('answers not ready at once, finishes the request in flight, and closes every connection it answers on', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = await get(port, '/healthz', agent);
    expect(before.status).toBe(200);
    expect(before.headers.connection).toBe('keep-alive');

    const inFlight = get(port, '/slow');
    await slowEntered;
    let drained = false;
    const draining = drainHttp(server, readiness, 5_000).then(() => (drained = true));

    // The client's idle keep-alive connection: answered, then closed.
    const onKeptConnection = await get(port, '/healthz', agent);
    expect(onKeptConnection.status).toBe(503);
    expect(onKeptConnection.headers.connection).toBe('close');
    // A new connection within the drain is still answered.
    const onNewConnection = await get(port, '/healthz');
    expect(onNewConnection.status).toBe(503);
    expect(onNewConnection.headers.connection).toBe('close');

    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(drained).toBe(false);
    releaseSlow();
    const completed = await inFlight;
    expect(completed.status).toBe(200);
    expect(completed.headers.connection).toBe('close');
    await draining;
    expect(drained).toBe(true);
    expect(server.listening).toBe(false);
    agent.destroy();
  });
});
