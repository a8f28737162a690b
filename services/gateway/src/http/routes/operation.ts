/**
 * What a route handler receives: the request as the operation table's schemas
 * validated it. Parsing, validation, the path-id check and the scope are the
 * router's (v1.router.ts), done the same way for every operation; a handler
 * only calls its service and answers.
 */
import type { Response } from 'express';
import type { BodyOf, OperationId, QueryOf } from '@platform/openapi';

export interface OperationRequest<K extends OperationId> {
  partnerId: string;
  /** The body after validation and normalisation (amounts at their currency's scale, a txHash without 0x). */
  body: BodyOf<K>;
  query: QueryOf<K>;
  /** Path parameters by name, each a lowercase UUID. */
  params: Record<string, string>;
}

export type OperationHandler<K extends OperationId> = (request: OperationRequest<K>, res: Response) => Promise<void>;
