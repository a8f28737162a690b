// Proves the drain order of runService on SIGTERM, with the gRPC server and the metrics
// endpoint faked and a real WorkLoop as the background worker: the service reports
// NOT_SERVING first; its worker has stopped claiming (and its pass in flight is no longer
// followed by another) before the server starts draining its calls; the connections close
// only once both the worker's pass and the server's drain have ended; the metrics endpoint
// closes last and the process exits 0. A drain that fails is logged and the connections are
// still closed.
import { WorkLoop } from '@platform/persistence';
import { runService, ServiceLifecycle } from './run-service';

const journal: string[] = [];

jest.mock('@platform/metrics', () => ({
  startMetricsServer: async () => ({ port: 9999, close: async () => void journal.push('metrics closed') }),
}));

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve = () => undefined as void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

const logger = {
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => void journal.push(`logged: ${message}`),
  child: () => logger,
} as unknown as ServiceLifecycle['logger'];

/** A gRPC server whose drain ends when the test says so; it records whether the worker was still claiming. */
function fakeServer(worker: WorkLoop, serverDrain: Deferred) {
  return {
    health: { setServing: (serving: boolean) => void journal.push(serving ? 'SERVING' : 'NOT_SERVING') },
    listen: async () => 7000,
    listenHealth: async () => 7900,
    shutdown: async () => {
      journal.push(`server drain started (worker ${worker.stopping ? 'not claiming' : 'still claiming'})`);
      await serverDrain.promise;
      journal.push('server drained');
    },
  } as unknown as ServiceLifecycle['server'];
}

/** A worker whose pass claims a row and holds it until the test releases it. */
function heldWorker(passHeld: Deferred): { loop: WorkLoop; claims: () => number } {
  let claims = 0;
  const loop = new WorkLoop(
    async () => {
      claims += 1;
      journal.push('worker claimed');
      await passHeld.promise;
      journal.push('worker pass finished');
      return 'more';
    },
    logger,
    { name: 'test', intervalMs: 1 },
  );
  return { loop, claims: () => claims };
}

describe('runService on SIGTERM', () => {
  let signals: Map<string, () => void>;
  let exit: jest.SpyInstance;
  let on: jest.SpyInstance;

  beforeEach(() => {
    journal.length = 0;
    signals = new Map();
    on = jest.spyOn(process, 'on').mockImplementation(((event: string, listener: () => void) => {
      signals.set(event, listener);
      return process;
    }) as never);
    exit = jest.spyOn(process, 'exit').mockImplementation(((code: number) => {
      journal.push(`exit ${code}`);
    }) as never);
  });

  afterEach(() => {
    on.mockRestore();
    exit.mockRestore();
  });

  it('stops claiming before the server drains, and closes connections only after both', async () => {
    const passHeld = deferred();
    const serverDrain = deferred();
    const worker = heldWorker(passHeld);
    await runService({
      logger,
      server: fakeServer(worker.loop, serverDrain),
      grpcPort: 0,
      shutdownGraceMs: 10_000,
      metrics: { port: 0 },
      drain: async () => {
        journal.push('drain started');
        await worker.loop.stop();
        journal.push('worker stopped');
      },
      stop: async () => void journal.push('connections closed'),
    });
    worker.loop.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(worker.claims()).toBe(1);

    signals.get('SIGTERM')?.();
    await settle();
    serverDrain.resolve();
    await settle();
    // The server has drained, but the worker's pass still holds its row: nothing closes under it.
    expect(journal).not.toContain('connections closed');
    passHeld.resolve();
    await settle();
    await settle();

    expect(journal).toEqual([
      'SERVING',
      'worker claimed',
      'NOT_SERVING',
      'drain started',
      'server drain started (worker not claiming)',
      'server drained',
      'worker pass finished',
      'worker stopped',
      'connections closed',
      'metrics closed',
      'exit 0',
    ]);
    // The pass said more work waits, yet no pass followed once draining began.
    expect(worker.claims()).toBe(1);
  });

  it('logs a failed drain and still closes the connections', async () => {
    await runService({
      logger,
      server: fakeServer(heldWorker(deferred()).loop, { promise: Promise.resolve(), resolve: () => undefined }),
      grpcPort: 0,
      shutdownGraceMs: 10_000,
      metrics: { port: 0 },
      drain: async () => {
        throw new Error('broker gone');
      },
      stop: async () => void journal.push('connections closed'),
    });
    signals.get('SIGTERM')?.();
    await settle();
    await settle();
    expect(journal).toContain('logged: draining background work failed; closing anyway');
    expect(journal.slice(-3)).toEqual(['connections closed', 'metrics closed', 'exit 0']);
  });

  it('leaves no exit behind once stopped in time', async () => {
    // The grace timer (grace + 2 s) would otherwise fire after the exit; where exit is replaced
    // (here, or in any caller that does not end the process) it would exit 1 later.
    await runService({
      logger,
      server: fakeServer(heldWorker(deferred()).loop, { promise: Promise.resolve(), resolve: () => undefined }),
      grpcPort: 0,
      shutdownGraceMs: 0,
      metrics: { port: 0 },
      stop: async () => void journal.push('connections closed'),
    });
    signals.get('SIGTERM')?.();
    await settle();
    await settle();
    expect(journal.slice(-1)).toEqual(['exit 0']);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(journal.filter((line) => line.startsWith('exit'))).toEqual(['exit 0']);
  });
});
