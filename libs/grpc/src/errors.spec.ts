// Proves how a handler's failure crosses gRPC: a refusal keeps its code, a
// dependency outage (database restarting, connection refused or lost) becomes
// SERVICE_UNAVAILABLE (503 at the gateway, retry shortly) logged as a warning,
// and anything else stays INTERNAL_ERROR logged as an error. Found by the
// PostgreSQL-restart fault test: a refused database connection answered 500.
import { status } from '@grpc/grpc-js';
import { AppError } from '@platform/errors';
import { recordingLogger } from '@platform/logger';
import { isDependencyOutage, toServiceError } from './errors';

/** The level and message of each line logged, in order. */
const levelsAndMessages = (lines: ReturnType<typeof recordingLogger>['lines']) =>
  lines.map(({ level, message }) => ({ level, message }));

function systemError(code: string, message = `connect ${code} 127.0.0.1:5432`): Error {
  return Object.assign(new Error(message), { code });
}

describe('isDependencyOutage', () => {
  it.each([
    ['a refused connection', systemError('ECONNREFUSED')],
    ['a reset connection', systemError('ECONNRESET')],
    ['PostgreSQL shutting down (57P01)', systemError('57P01', 'terminating connection due to administrator command')],
    ['PostgreSQL starting up (57P03)', systemError('57P03', 'the database system is starting up')],
    ['a connection exception (class 08)', systemError('08006', 'connection failure')],
    ['node-postgres losing its connection', new Error('Connection terminated unexpectedly')],
    ['the pool timing out', new Error('timeout exceeded when trying to connect')],
    [
      'TypeORM wrapping a driver error',
      Object.assign(new Error('query failed'), { driverError: systemError('57P01', 'terminating') }),
    ],
    ['an error caused by a refused connection', new Error('wrapped', { cause: systemError('ECONNREFUSED') })],
  ])('is true for %s', (_name, error) => {
    expect(isDependencyOutage(error)).toBe(true);
  });

  it.each([
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a constraint violation', systemError('23505', 'duplicate key value violates unique constraint')],
    ['a serialisation failure', systemError('40001', 'could not serialize access')],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
  ])('is false for %s', (_name, error) => {
    expect(isDependencyOutage(error)).toBe(false);
  });
});

describe('toServiceError', () => {
  it('sends a dependency outage as SERVICE_UNAVAILABLE and logs a warning', () => {
    const { logger, lines } = recordingLogger();
    const sent = toServiceError(systemError('ECONNREFUSED'), logger, '/ledger.v1.Ledger/GetBalances');
    expect(sent.code).toBe(status.UNAVAILABLE);
    expect(sent.details).toBe('SERVICE_UNAVAILABLE');
    expect(levelsAndMessages(lines)).toEqual([{ level: 'warn', message: 'dependency unavailable in gRPC handler' }]);
  });

  it('sends anything unexpected as INTERNAL_ERROR and logs an error', () => {
    const { logger, lines } = recordingLogger();
    const sent = toServiceError(new TypeError('bug'), logger, '/x');
    expect(sent.code).toBe(status.INTERNAL);
    expect(sent.details).toBe('INTERNAL_ERROR');
    expect(levelsAndMessages(lines)).toEqual([{ level: 'error', message: 'unhandled error in gRPC handler' }]);
  });

  it('keeps a refusal as it is, without logging', () => {
    const { logger, lines } = recordingLogger();
    const sent = toServiceError(new AppError('QUOTE_NOT_FOUND'), logger, '/x');
    expect(sent.code).toBe(status.NOT_FOUND);
    expect(sent.details).toBe('QUOTE_NOT_FOUND');
    expect(levelsAndMessages(lines)).toEqual([]);
  });
});
