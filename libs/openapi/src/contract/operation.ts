/**
 * The shape of one partner-plane operation, as the operation table states it
 * once: method and path, the scope a credential needs, the request it takes
 * (zod schemas the gateway validates with), the answers it gives and the
 * refusal codes beyond the common ones. The gateway registers its routes from
 * the table and the API reference is built from it, so the two cannot differ.
 */
import type { ErrorCode } from '@platform/errors';
import type { z } from 'zod';
import type { Scope } from './scopes';

export type Method = 'get' | 'post' | 'patch' | 'delete';
export { SCOPES } from './scopes';
export type { Scope } from './scopes';

export interface SuccessAnswer {
  description: string;
  /** A component schema name; `Name[]` for an array of it; absent for no body. */
  schema?: string;
  headers?: string[];
}

export interface RequestBody<S extends z.ZodTypeAny = z.ZodTypeAny> {
  /** The component the document names it by, e.g. `QuoteRequest`. */
  name: string;
  schema: S;
  /** A rule spanning several fields, checked on the raw body even when fields are malformed: the fields it names. */
  crossFieldCheck?: (body: Record<string, unknown>) => string[];
  /** The same rule in JSON Schema keywords, for the document (e.g. `oneOf`). */
  crossFieldSchema?: Record<string, unknown>;
}

export interface OperationSpec {
  method: Method;
  /** OpenAPI form, e.g. `/v1/orders/{id}`. Every path parameter is a resource id (a UUID). */
  path: string;
  tag: string;
  summary: string;
  description: string;
  scope: Scope;
  /** `sandbox`: served in sandbox mode only (404 NOT_FOUND in production). */
  availability?: 'sandbox';
  /** The refusal for a path id that names nothing of the partner's (malformed ids included). */
  notFound?: ErrorCode;
  request?: RequestBody;
  /** The query string's parameters; absent: the query string is ignored. */
  query?: z.AnyZodObject;
  success: Record<number, SuccessAnswer>;
  /** Refusals beyond COMMON_ERROR_CODES; statuses come from the error catalogue. */
  errors: ErrorCode[];
}

/** Keeps each entry's exact types (its request schema above all) while checking it against OperationSpec. */
export function defineOperations<T extends Record<string, OperationSpec>>(operations: T): T {
  return operations;
}

/** `{id}` and the like, in path order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z]+)\}/g)].map(([, name]) => name);
}
