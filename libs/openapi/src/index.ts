/**
 * @platform/openapi: the partner plane's OpenAPI 3.1 document. `openApiDocument()`
 * returns it (built from the route table, schemas and the error catalogue);
 * openapi.json beside this workspace is the committed copy partners download.
 */
import { buildOpenApiDocument } from './document';

export { buildOpenApiDocument, renderOpenApiJson, partnerErrorCodes } from './document';
export { renderErrorsGuide } from './errors-guide';
export { OPERATIONS, COMMON_ERROR_CODES } from './operations';
export type { OperationSpec, Method, Scope } from './operations';
export { WEBHOOK_EVENTS } from './webhooks';
export { OPENAPI_JSON_FILE, ERRORS_GUIDE_FILE } from './paths';

let cached: Record<string, unknown> | undefined;

/** The document, built once per process. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= buildOpenApiDocument();
  return cached;
}
