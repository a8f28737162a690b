/**
 * Error mapping across gRPC. A refusal (AppError) travels as the catalogue's
 * gRPC status with its payload in the `x-error` trailer, so the gateway can
 * rebuild it exactly. Anything else is a bug: logged in full where it happened,
 * sent as a bare INTERNAL_ERROR.
 */
import { Metadata, ServiceError, status } from '@grpc/grpc-js';
import { AppError, ERROR_CATALOGUE, fromPayload, isAppError, toPayload } from '@platform/errors';
import type { Logger } from '@platform/logger';

export const ERROR_METADATA_KEY = 'x-error';

export function toServiceError(error: unknown, logger: Logger, method: string): Partial<ServiceError> {
  const appError = isAppError(error) ? error : new AppError('INTERNAL_ERROR');
  if (!isAppError(error)) logger.error('unhandled error in gRPC handler', { method, error });
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
    code === status.UNAVAILABLE || code === status.DEADLINE_EXCEEDED || code === status.CANCELLED ||
    code === status.RESOURCE_EXHAUSTED || (error as { code?: string })?.code === 'EOPENBREAKER';
  return new AppError(transportFailure ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR');
}
