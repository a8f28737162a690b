/**
 * What the reference says about a schema beyond its rules: a description and
 * an example. Kept beside the schema (not in it, since zod has no place for an
 * example) and read when the document is built.
 */
import type { ZodTypeAny } from 'zod';

export interface Documentation {
  description?: string;
  example?: unknown;
}

const notes = new WeakMap<object, Documentation>();

/** Attaches `documentation` to `schema` and returns the schema itself. */
export function documented<S extends ZodTypeAny>(schema: S, documentation: Documentation): S {
  notes.set(schema._def, documentation);
  return schema;
}

/** The documentation attached to a schema, by its definition object. */
export function documentationOf(definition: object): Documentation | undefined {
  return notes.get(definition);
}
