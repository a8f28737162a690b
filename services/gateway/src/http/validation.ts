/**
 * Request bodies and query strings, validated with the operation table's zod
 * schemas. Bodies are JSON objects only, sent as application/json (UTF-8). A
 * refusal names every offending field (`Validation failed on: <fields>`),
 * top-level names or dotted paths (`destination.accountNumber`, `items[0].amount`),
 * in the order the fields appear in the request; fields the request lacks come
 * after, in the order the schema declares them. A query names its unknown or
 * repeated parameters first, then the bad ones in the schema's order.
 */
import { TextDecoder } from 'node:util';
import { validationFailed } from '@platform/errors';
import type { z, ZodIssue } from 'zod';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const BODY_FIELD = 'body';

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [mediaType, ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, value = ''] = parameter.split('=').map((part) => part.trim());
    return name !== 'charset' || value.replace(/^"|"$/g, '') === 'utf-8';
  });
}

/** The body as a JSON object; `Validation failed on: body` for a wrong content type, bad UTF-8, bad JSON or a non-object. */
export function parseJsonObject(rawBody: Buffer, contentType: string | undefined): Record<string, unknown> {
  if (!isJsonContentType(contentType)) throw validationFailed([BODY_FIELD]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(UTF8.decode(rawBody));
  } catch {
    throw validationFailed([BODY_FIELD]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw validationFailed([BODY_FIELD]);
  return parsed as Record<string, unknown>;
}

type PathSegment = string | number;

export function fieldName(path: readonly PathSegment[]): string {
  if (path.length === 0) return BODY_FIELD;
  return path.reduce<string>((name, segment, index) => {
    if (typeof segment === 'number') return `${name}[${segment}]`;
    return index === 0 ? segment : `${name}.${segment}`;
  }, '');
}

/** Where a path sits in the request: the key index at each level, Infinity from the first missing level on. */
function positionInRequest(body: unknown, path: readonly PathSegment[]): number[] {
  const position: number[] = [];
  let current: unknown = body;
  for (const segment of path) {
    const isContainer = current !== null && typeof current === 'object';
    const keys = isContainer ? Object.keys(current as object) : [];
    const index = keys.indexOf(String(segment));
    if (index < 0) return [...position, Infinity];
    position.push(index);
    current = (current as Record<string, unknown>)[String(segment)];
  }
  return position;
}

function comparePositions(left: number[], right: number[]): number {
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    if (left[index] !== right[index]) return left[index] < right[index] ? -1 : 1;
  }
  return left.length - right.length;
}

/** Offending paths of zod issues, an unrecognised key being one path per key. */
function issuePaths(issues: readonly ZodIssue[]): PathSegment[][] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path],
  );
}

/** Field names in request order, each once. Sorting is stable, so ties keep the schema's order. */
export function offendingFields(body: unknown, paths: readonly PathSegment[][]): string[] {
  const ranked = paths.map((path) => ({ name: fieldName(path), position: positionInRequest(body, path) }));
  ranked.sort((left, right) => comparePositions(left.position, right.position));
  return [...new Set(ranked.map((entry) => entry.name))];
}

/**
 * Validates a parsed body. `crossFieldCheck` names fields that break a rule
 * spanning several of them (e.g. exactly one amount); it sees the raw body, so
 * it reports even when other fields are malformed.
 */
export function validateBody<S extends z.ZodTypeAny>(
  schema: S,
  body: Record<string, unknown>,
  crossFieldCheck: (body: Record<string, unknown>) => string[] = () => [],
): z.infer<S> {
  const result = schema.safeParse(body);
  const paths = result.success ? [] : issuePaths(result.error.issues);
  const crossPaths = crossFieldCheck(body).map((field) => field.split('.'));
  if (result.success && crossPaths.length === 0) return result.data;
  throw validationFailed(offendingFields(body, [...paths, ...crossPaths]));
}

/** A query string against its schema: each parameter at most once; unknown, repeated and bad ones are all named. */
export function validateQuery<S extends z.AnyZodObject>(schema: S, rawQuery: string): z.output<S> {
  const params = new URLSearchParams(rawQuery);
  const shape = schema.shape as Record<string, z.ZodTypeAny>;
  const bad: string[] = [];
  const given: Record<string, string> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    if (!Object.hasOwn(shape, name) || values.length !== 1) {
      bad.push(name);
      continue;
    }
    given[name] = values[0];
  }
  const parsed: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(shape)) {
    const result = field.safeParse(given[name]);
    if (!result.success) bad.push(name);
    else if (result.data !== undefined) parsed[name] = result.data;
  }
  if (bad.length > 0) throw validationFailed(bad);
  return parsed as z.output<S>;
}

/** The raw query string of a request URL (after `?`), exactly as sent. */
export function rawQueryOf(originalUrl: string): string {
  const index = originalUrl.indexOf('?');
  return index < 0 ? '' : originalUrl.slice(index + 1);
}
