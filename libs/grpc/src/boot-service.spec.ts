// Proves the shared start with its edges faked (logger, tracing, TLS, database, runService):
// it hands the service its configuration, logger, TLS and connected database, and a peer
// factory presenting the service's identity to the named upstream; on shutdown the service's
// drain is what runService calls at NOT_SERVING (its workers stop claiming), and the stop after
// it runs the service's own stop, then closes the database, then tracing, last; a service naming
// its retention rules has them run on its RETENTION_INTERVAL_MS and RETENTION_BATCH_SIZE, stopped
// in the drain, before the database closes; and a start that fails logs `failed to start` under
// the service's name and exits 1.
const journal: string[] = [];
const logged: Array<{ service: string; message: string }> = [];
const lifecycles: Array<{ grpcPort: number; drain: () => Promise<unknown>; stop: () => Promise<void> }> = [];
const dataSource = { destroy: async () => void journal.push('database closed') };
const clientCalls: Array<{ upstream: string; address: string; deadlineMs?: number; tls: unknown }> = [];
const retentionStarts: Array<{ rules: unknown; options: unknown }> = [];

jest.mock('@platform/logger', () => ({
  createLogger: (service: string) => ({
    error: (message: string) => logged.push({ service, message }),
    child: () => ({}),
  }),
}));
jest.mock('@platform/tracing', () => ({
  startTracing: () => ({ shutdown: async () => void journal.push('tracing shut down') }),
}));
jest.mock('@platform/metrics', () => ({ observeDatabasePool: () => () => undefined }));
jest.mock('@platform/persistence', () => ({
  initializeWithRetry: async (source: unknown) => source,
  startRetention: (_dataSource: unknown, rules: unknown, _logger: unknown, options: unknown) => {
    retentionStarts.push({ rules, options });
    return { sweepers: [], stop: async () => void journal.push('retention stopped') };
  },
}));
jest.mock('./tls', () => ({ loadServiceTls: () => ({ client: (identity: string) => `tls towards ${identity}` }) }));
jest.mock('./client', () => ({
  createClient: (_definition: unknown, options: (typeof clientCalls)[number]) => clientCalls.push(options),
}));
jest.mock('./run-service', () => ({
  runService: async (lifecycle: (typeof lifecycles)[number]) => void lifecycles.push(lifecycle),
}));

import { bootService, BootConfig } from './boot-service';

const config = { GRPC_PORT: 7123, DATABASE_URL: 'postgres://x/y', LOG_LEVEL: 'info' } as unknown as BootConfig;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('bootService', () => {
  beforeEach(() => {
    journal.length = 0;
    logged.length = 0;
    lifecycles.length = 0;
    clientCalls.length = 0;
    retentionStarts.length = 0;
  });

  it("hands the service what it built; drains the service's work, then stops it, the database, then tracing", async () => {
    bootService({
      service: 'svc',
      readConfig: () => config,
      dataSource: () => dataSource as never,
      start: ({ config: given, dataSource: connected, peer }) => {
        expect(given).toBe(config);
        expect(connected).toBe(dataSource);
        peer({} as never, 'ledger', 'ledger:7002', { deadlineMs: 500 });
        return {
          server: {} as never,
          drain: async () => void journal.push('service drained'),
          stop: async () => void journal.push('service stopped'),
        };
      },
    });
    await settle();
    expect(clientCalls).toEqual([
      expect.objectContaining({
        upstream: 'ledger',
        address: 'ledger:7002',
        deadlineMs: 500,
        tls: 'tls towards ledger',
      }),
    ]);
    expect(lifecycles).toHaveLength(1);
    expect(lifecycles[0].grpcPort).toBe(7123);
    await lifecycles[0].drain();
    expect(journal).toEqual(['service drained']);
    await lifecycles[0].stop();
    expect(journal).toEqual(['service drained', 'service stopped', 'database closed', 'tracing shut down']);
    expect(retentionStarts).toEqual([]);
  });

  it("runs the service's retention rules on its retention settings and stops them in its drain", async () => {
    const rules = [{ table: 'outbox', idColumn: 'id', timeColumn: 'published_at', windowMs: 3_600_000 }];
    const retentionConfig = {
      ...config,
      RETENTION_INTERVAL_MS: 60_000,
      RETENTION_BATCH_SIZE: 500,
      WINDOW_MS: 3_600_000,
    };
    bootService({
      service: 'svc',
      readConfig: () => retentionConfig,
      dataSource: () => dataSource as never,
      retention: (given) => rules.map((rule) => ({ ...rule, windowMs: given.WINDOW_MS })),
      start: () => ({ server: {} as never, stop: async () => void journal.push('service stopped') }),
    });
    await settle();
    expect(retentionStarts).toEqual([{ rules, options: { intervalMs: 60_000, batchSize: 500 } }]);
    // A service without a drain of its own still has its sweepers stopped there.
    await lifecycles[0].drain();
    expect(journal).toEqual(['retention stopped']);
    await lifecycles[0].stop();
    expect(journal).toEqual(['retention stopped', 'service stopped', 'database closed', 'tracing shut down']);
  });

  it('logs a failed start under the service name and exits 1', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    bootService({
      service: 'svc',
      readConfig: () => config,
      dataSource: () => dataSource as never,
      start: () => {
        throw new Error('no broker');
      },
    });
    await settle();
    expect(logged).toEqual([{ service: 'svc', message: 'failed to start' }]);
    expect(exit).toHaveBeenCalledWith(1);
    expect(lifecycles).toHaveLength(0);
    exit.mockRestore();
  });
});
