/**
 * Error mapping across gRPC. A refusal (AppError) travels as the catalogue's
 * gRPC status with its payload in the `x-error` trailer, so the gateway can
 * rebuild it exactly. A dependency outage (the handler's database or another
 * store unreachable) is SERVICE_UNAVAILABLE: the caller may retry shortly.
 * Anything else is a bug: logged in full where it happened, sent as a bare
 * INTERNAL_ERROR.
 */
import { Metadata, ServiceError, status } from '@grpc/grpc-js';
import { AppError, ERROR_CATALOGUE, fromPayload, isAppError, toPayload } from '@platform/errors';
import type { Logger } from '@platform/logger';

export const ERROR_METADATA_KEY = 'x-error';

/** Node socket errors meaning the peer could not be reached or went away. */
const OUTAGE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);
/** PostgreSQL: admin/crash shutdown, starting up, too many connections. Class 08 (connection exception) is matched whole. */
const OUTAGE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** node-postgres and its pool report a lost or never-made connection without a code. */
const OUTAGE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error/,
];
const CAUSE_DEPTH_MAX = 3;

/**
 * True when `error` says a dependency is unreachable (a database restarting, a
 * refused or reset connection) rather than that the code is wrong. Looks through
 * TypeORM's `driverError` and `cause` chains.
 */
export function isDependencyOutage(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > CAUSE_DEPTH_MAX) return false;
  const candidate = error as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
  const code = typeof candidate.code === 'string' ? candidate.code : '';
  const message = typeof candidate.message === 'string' ? candidate.message : '';
  if (OUTAGE_ERRNOS.has(code) || OUTAGE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  if (OUTAGE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  return isDependencyOutage(candidate.driverError, depth + 1) || isDependencyOutage(candidate.cause, depth + 1);
}

function appErrorOf(error: unknown, logger: Logger, method: string): AppError {
  if (isAppError(error)) return error;
  if (isDependencyOutage(error)) {
    logger.warn('dependency unavailable in gRPC handler', { method, error: (error as Error).message });
    return new AppError('SERVICE_UNAVAILABLE');
  }
  logger.error('unhandled error in gRPC handler', { method, error });
  return new AppError('INTERNAL_ERROR');
}

export function toServiceError(error: unknown, logger: Logger, method: string): Partial<ServiceError> {
  const appError = appErrorOf(error, logger, method);
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, JSON.stringify(toPayload(appError)));
  return { code: ERROR_CATALOGUE[appError.code].grpc, details: appError.code, metadata };
}

/** True when the error is a refusal from a healthy service (it must not trip a breaker). */
export function isRefusal(error: unknown): boolean {
  return isAppError(error) || readAppError(error) !== null;
}

function readAppError(error: unknown): AppError | null {
  const metadata = (error as ServiceError | undefined)?.metadata;
  if (!(metadata instanceof Metadata)) return null;
  const [raw] = metadata.get(ERROR_METADATA_KEY);
  if (typeof raw !== 'string') return null;
  try {
    return fromPayload(JSON.parse(raw));
  } catch {
    return null;
  }
}

/**
 * Turns whatever a client call threw into an AppError: the refusal it carried,
 * or SERVICE_UNAVAILABLE for transport failures (down, deadline, breaker open),
 * or INTERNAL_ERROR for anything else.
 */
export function fromClientError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const carried = readAppError(error);
  if (carried) return carried;
  const code = (error as ServiceError | undefined)?.code;
  const transportFailure =
    code === status.UNAVAILABLE ||
    code === status.DEADLINE_EXCEEDED ||
    code === status.CANCELLED ||
    code === status.RESOURCE_EXHAUSTED ||
    (error as { code?: string })?.code === 'EOPENBREAKER';
  return new AppError(transportFailure ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR');
}
