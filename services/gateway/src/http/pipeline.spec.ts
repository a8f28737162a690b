// Proves the app's entry without Express' router (dispatchWithoutRouter) does what
// Express' app.handle and its router did for the gateway's layers: req and res get
// Express' methods and getters (status, json, path, ip through the app's settings),
// req.originalUrl is the URL as sent, res.locals exists; a step's next(error), throw
// or rejected promise reaches the error handler with that error, a request no step
// answered reaches it with the not-found error, and an error handler that throws
// cuts the connection rather than leave the request hanging. Over a real socket.
import { request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { ErrorRequestHandler, RequestHandler } from 'express';
import { dispatchWithoutRouter, inOrder } from './pipeline';

interface Reply {
  status: number;
  text: string;
}

const NOT_FOUND = new Error('not found');

function get(server: Server, path: string): Promise<Reply> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function serve(steps: RequestHandler[], onError: ErrorRequestHandler): Promise<Server> {
  const app = express();
  app.set('trust proxy', 0);
  dispatchWithoutRouter(app, inOrder(steps), onError, () => NOT_FOUND);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return server;
}

const answerErrorMessage: ErrorRequestHandler = (error: Error, _req, res, _next) => {
  res.status(599).json({ error: error.message });
};

describe('dispatchWithoutRouter', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  });

  it("gives req and res Express' methods, the URL as sent and res.locals", async () => {
    server = await serve(
      [
        (req, res, next) => {
          res.locals.seen = 'step one';
          next();
        },
        (req, res) => {
          res.status(201).json({
            originalUrl: req.originalUrl,
            path: req.path,
            ip: req.ip,
            baseUrl: req.baseUrl,
            seen: res.locals.seen,
            // The record inherits nothing, as Express' Object.create(null) did.
            inherits: ['toString', 'constructor', 'hasOwnProperty', '__proto__'].filter((key) => key in res.locals),
          });
        },
      ],
      answerErrorMessage,
    );
    const reply = await get(server, '/v1/orders/abc?limit=2');
    expect(reply.status).toBe(201);
    expect(JSON.parse(reply.text)).toEqual({
      originalUrl: '/v1/orders/abc?limit=2',
      path: '/v1/orders/abc',
      ip: '127.0.0.1',
      baseUrl: '',
      seen: 'step one',
      inherits: [],
    });
  });

  it('hands a next(error), a throw and a rejected promise to the error handler, and an unanswered request as not found', async () => {
    server = await serve(
      [
        (req, _res, next) => (req.path === '/next' ? next(new Error('by next')) : next()),
        (req, _res, next) => {
          if (req.path === '/throw') throw new Error('thrown');
          next();
        },
        async (req, _res, next) => {
          if (req.path === '/reject') throw new Error('rejected');
          next();
        },
      ],
      answerErrorMessage,
    );
    const replies = await Promise.all(['/next', '/throw', '/reject', '/nothing'].map((path) => get(server!, path)));
    expect(replies.map((reply) => [reply.status, JSON.parse(reply.text).error])).toEqual([
      [599, 'by next'],
      [599, 'thrown'],
      [599, 'rejected'],
      [599, 'not found'],
    ]);
  });

  it('cuts the connection when the error handler itself throws', async () => {
    server = await serve([(_req, _res, next) => next(new Error('first'))], () => {
      throw new Error('the error handler failed');
    });
    await expect(get(server, '/anything')).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
