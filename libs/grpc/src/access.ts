/**
 * Per-method allow-lists. Every service states, beside its server wiring, which
 * identities may call each method of each service definition it serves (an
 * `AccessTable`; the type makes a method without an entry a compile error, and
 * the server refuses to start without one). The server checks the caller's
 * certificate identity against the table before the handler runs: anyone else
 * gets PERMISSION_DENIED, and a structured security log line records who tried
 * what (identity, method, request id; never the request).
 */
import { Metadata, ServiceError, status } from '@grpc/grpc-js';
import type { Logger } from '@platform/logger';
import type { PlatformIdentity } from './identity';

/** For each method of a service definition, the identities that may call it. */
export type AccessTable<D> = { readonly [K in keyof D]: readonly PlatformIdentity[] };

/** The details of every refusal: the same for every reason, so it tells a prober nothing. */
export const PERMISSION_DENIED_DETAILS = 'PERMISSION_DENIED';

export interface AccessDecision {
  allowed: boolean;
  caller: string | null;
}

export function decideAccess(allowed: readonly string[], caller: string | null): AccessDecision {
  return { allowed: caller !== null && allowed.includes(caller), caller };
}

/** Logs the refusal (event `grpc.permission_denied`) and builds the status sent back. */
export function permissionDenied(
  logger: Logger,
  method: string,
  caller: string | null,
  requestId: string | undefined,
): Partial<ServiceError> {
  logger.warn('gRPC call refused: caller not allowed', {
    event: 'grpc.permission_denied',
    method,
    caller: caller ?? 'unidentified',
    ...(requestId ? { requestId } : {}),
  });
  return { code: status.PERMISSION_DENIED, details: PERMISSION_DENIED_DETAILS, metadata: new Metadata() };
}

/** Checks that a table names an entry for every method of its definition (a guard for tables built at run time). */
export function assertCompleteTable(
  serviceName: string,
  methods: string[],
  table: Record<string, readonly string[] | undefined>,
): void {
  const missing = methods.filter((method) => !Array.isArray(table[method]));
  if (missing.length > 0) throw new Error(`access table of ${serviceName} has no entry for ${missing.join(', ')}`);
  const unknown = Object.keys(table).filter((method) => !methods.includes(method));
  if (unknown.length > 0) throw new Error(`access table of ${serviceName} names unknown methods ${unknown.join(', ')}`);
}
