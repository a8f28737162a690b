/**
 * @platform/openapi: the partner plane's contract. OPERATIONS is the operation
 * table (paths, scopes, zod request schemas, answers, refusals) the gateway
 * registers its routes from; `openApiDocument()` is the OpenAPI 3.1 document
 * built from it, the response schemas and the error catalogue; openapi.json
 * beside this workspace is the committed copy partners download.
 */
import { buildOpenApiDocument } from './document';

export { buildOpenApiDocument, renderOpenApiJson, partnerErrorCodes } from './document';
export { renderErrorsGuide } from './errors-guide';
export { OPERATIONS, OPERATION_LIST, COMMON_ERROR_CODES } from './operations';
export type { Operation, OperationId, BodyOf, QueryOf } from './operations';
export { SCOPES, pathParameterNames } from './contract/operation';
export { plainCheckOf } from './contract/fields';
export type { OperationSpec, Method, Scope, RequestBody, SuccessAnswer } from './contract/operation';
export { WEBHOOK_EVENTS } from './webhooks';
export { OPENAPI_JSON_FILE, ERRORS_GUIDE_FILE, REFERENCE_HTML_FILE } from './paths';

let cached: Record<string, unknown> | undefined;

/** The document, built once per process. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= buildOpenApiDocument();
  return cached;
}
