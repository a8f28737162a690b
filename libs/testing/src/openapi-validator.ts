/**
 * Validates partner-plane answers against the OpenAPI document
 * (@platform/openapi), so every integration test doubles as a conformance
 * check. For each answer: the operation is found by method and path; its status
 * must be documented for that operation; a JSON body must match the documented
 * schema (objects may carry extra fields: the contract grows additively); a
 * refusal's code must be one the operation documents for that status. An
 * answer for an undocumented path must be a 401 or 404 error envelope.
 */
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import { openApiDocument } from '@platform/openapi';

interface ResponseObject {
  content?: Record<string, { schema?: Record<string, unknown> }>;
  /** The refusal codes documented for this operation and status. */
  'x-error-codes'?: string[];
}
interface OperationObject {
  responses: Record<string, ResponseObject>;
}
interface Template {
  template: string;
  pattern: RegExp;
  parameterCount: number;
  operations: Record<string, OperationObject>;
}

export interface ResponseToValidate {
  method: string;
  pathAndQuery: string;
  status: number;
  contentType: string | null;
  body: unknown;
  text: string;
}

let templates: Template[] | undefined;
let components: Record<string, unknown> | undefined;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const validators = new Map<string, ValidateFunction>();

function load(): Template[] {
  if (templates) return templates;
  const document = openApiDocument() as {
    paths: Record<string, Record<string, OperationObject>>;
    components: Record<string, unknown>;
  };
  components = document.components;
  templates = Object.entries(document.paths)
    .map(([template, operations]) => ({
      template,
      operations,
      parameterCount: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
    }))
    // A literal segment wins over a parameter (`/v1/orders/buy` before `/v1/orders/{id}`).
    .sort((a, b) => a.parameterCount - b.parameterCount);
  return templates;
}

function validatorFor(key: string, schema: Record<string, unknown>): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    // The document's `#/components/...` references resolve against this root.
    validate = ajv.compile({ ...schema, components });
    validators.set(key, validate);
  }
  return validate;
}

function checkBody(key: string, schema: Record<string, unknown> | undefined, response: ResponseToValidate): string[] {
  if (!schema) return response.text === '' ? [] : [`a body was sent where none is documented`];
  if (!response.contentType?.includes('application/json')) return [];
  const validate = validatorFor(key, schema);
  if (validate(response.body)) return [];
  return (validate.errors ?? [])
    .slice(0, 10)
    .map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
}

/** The catalogue code an error body stands for (the three sentences map to their codes). */
function codeOf(body: unknown): string | undefined {
  const message = (body as { message?: unknown } | null | undefined)?.message;
  if (typeof message !== 'string') return undefined;
  if (message.startsWith('Validation failed on: ')) return 'VALIDATION_FAILED';
  if (message === 'An error occurred') return 'UNAUTHORIZED';
  if (message === 'Too Many Requests') return 'RATE_LIMITED';
  return message;
}

/** A refusal's code must be one the document lists for this operation and status. */
function checkErrorCode(answer: ResponseObject, operation: string, response: ResponseToValidate): string[] {
  const documented = answer['x-error-codes'];
  const code = codeOf(response.body);
  if (!documented || code === undefined || documented.includes(code)) return [];
  return [
    `refusal ${code} (${response.status}) is not documented for ${operation} (documented: ${documented.join(', ')})`,
  ];
}

/** The problems of one answer; empty when it conforms. */
export function openApiViolations(response: ResponseToValidate): string[] {
  const path = response.pathAndQuery.split('?')[0];
  const method = response.method.toLowerCase();
  const match = load().find((candidate) => candidate.pattern.test(path) && candidate.operations[method]);
  if (!match) {
    if (response.status === 401 || response.status === 404) {
      return checkBody('ErrorEnvelope', { $ref: '#/components/schemas/ErrorEnvelope' }, response);
    }
    return [`${response.method} ${path} answered ${response.status} but no documented operation matches`];
  }
  const answer = match.operations[method].responses[String(response.status)];
  if (!answer) return [`status ${response.status} is not documented for ${method.toUpperCase()} ${match.template}`];
  const schema = answer.content?.['application/json']?.schema ?? answer.content?.['text/html']?.schema;
  const operation = `${method.toUpperCase()} ${match.template}`;
  return [
    ...checkBody(`${operation} ${response.status}`, schema, response),
    ...checkErrorCode(answer, operation, response),
  ];
}

/** Throws when the answer does not conform, naming the operation and every problem. */
export function assertConformsToOpenApi(response: ResponseToValidate): void {
  const problems = openApiViolations(response);
  if (problems.length === 0) return;
  throw new Error(
    `response does not conform to libs/openapi (${response.method} ${response.pathAndQuery} → ${response.status}):\n  ` +
      `${problems.join('\n  ')}\nbody: ${response.text.slice(0, 500)}`,
  );
}
