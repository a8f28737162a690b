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
import { plainCheckOf } from '@platform/openapi';
import { z, ZodEnum, ZodIssue, ZodObject, ZodOptional } from 'zod';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const BODY_FIELD = 'body';

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  // What clients send nearly always, answered without splitting it.
  if (contentType === 'application/json') return true;
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
  crossFieldCheck: (body: Record<string, unknown>) => string[] = noCrossFieldRule,
): z.infer<S> {
  const accepted = plainParserOf(schema)?.(body);
  if (accepted !== undefined && crossFieldCheck(body).length === 0) return accepted as z.infer<S>;
  return validateBodyWithZod(schema, body, crossFieldCheck);
}

const noCrossFieldRule = () => [];

/** validateBody with zod alone: what every refusal goes through, and what the plain parser is proved against. */
export function validateBodyWithZod<S extends z.ZodTypeAny>(
  schema: S,
  body: Record<string, unknown>,
  crossFieldCheck: (body: Record<string, unknown>) => string[] = noCrossFieldRule,
): z.infer<S> {
  const result = schema.safeParse(body);
  const paths = result.success ? [] : issuePaths(result.error.issues);
  const crossPaths = crossFieldCheck(body).map((field) => field.split('.'));
  if (result.success && crossPaths.length === 0) return result.data;
  throw validationFailed(offendingFields(body, [...paths, ...crossPaths]));
}

type PlainParser = (body: Record<string, unknown>) => Record<string, unknown> | undefined;

interface PlainField {
  name: string;
  optional: boolean;
  check: (value: unknown) => unknown;
}

const plainParsers = new WeakMap<z.ZodTypeAny, PlainParser | null>();

/**
 * A body a strict object schema certainly accepts, normalised as zod would, checked without
 * zod's per-parse objects (a context, a status and an issue list per field, on every request);
 * undefined for anything else, which zod then judges, so every refusal and its fields are zod's.
 * Only schemas made of fields whose rule is plain are read this way: enums, and the amount and
 * rate inputs (their rule written once, beside their schema: plainCheckOf), each optional or
 * not; for any other schema there is no plain parser. The output is zod's: the shape's fields in
 * its order, an absent optional field left out. validation-plain.spec.ts proves the two agree over
 * generated bodies, hostile ones included.
 */
export function plainParserOf(schema: z.ZodTypeAny): PlainParser | null {
  let parser = plainParsers.get(schema);
  if (parser === undefined) {
    parser = compilePlainParser(schema);
    plainParsers.set(schema, parser);
  }
  return parser;
}

function plainField(name: string, field: z.ZodTypeAny): PlainField | null {
  const optional = field instanceof ZodOptional;
  const inner = optional ? (field.unwrap() as z.ZodTypeAny) : field;
  if (inner instanceof ZodEnum) {
    const values = new Set<unknown>(inner.options as string[]);
    return { name, optional, check: (value) => (typeof value === 'string' && values.has(value) ? value : undefined) };
  }
  const check = plainCheckOf(inner);
  return check ? { name, optional, check } : null;
}

function compilePlainParser(schema: z.ZodTypeAny): PlainParser | null {
  if (!(schema instanceof ZodObject) || schema._def.unknownKeys !== 'strict') return null;
  const shape = schema.shape as Record<string, z.ZodTypeAny>;
  const fields: PlainField[] = [];
  for (const [name, field] of Object.entries(shape)) {
    const plain = name === '__proto__' ? null : plainField(name, field);
    if (plain === null) return null;
    fields.push(plain);
  }
  return (body) => {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
    // Every enumerable key, inherited ones too, as zod's strict check walks them.
    for (const key in body) if (!Object.hasOwn(shape, key)) return undefined;
    const accepted: Record<string, unknown> = {};
    for (const { name, optional, check } of fields) {
      const value = body[name];
      if (value === undefined) {
        if (!optional) return undefined;
        if (name in body) accepted[name] = undefined;
        continue;
      }
      const normalised = check(value);
      if (normalised === undefined) return undefined;
      accepted[name] = normalised;
    }
    return accepted;
  };
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
