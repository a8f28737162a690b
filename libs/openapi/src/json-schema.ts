/**
 * zod → JSON Schema for the document: request bodies become components (with
 * shared pieces such as KesAmountInput referenced, not repeated) and query
 * parameters their schemas. What the gateway validates is what the document
 * states: maximum lengths, patterns, enums, bounds and required fields all come
 * from the zod schemas. Input shapes are described (what a partner sends,
 * before any normalisation); integers get the int32 or int64 format their
 * bounds fit.
 */
import { z, ZodOptional, ZodTypeAny } from 'zod';
import { zodToJsonSchema as convertWithLibrary } from 'zod-to-json-schema';
import { documentationOf } from './contract/documentation';
import { KES_AMOUNT_INPUT, RATE_INPUT, USD_AMOUNT_INPUT, USDT_AMOUNT_INPUT } from './contract/fields';

type Schema = Record<string, unknown>;

const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;

/** Pieces shared by several requests, each one component. */
const SHARED_INPUTS: Record<string, ZodTypeAny> = {
  KesAmountInput: KES_AMOUNT_INPUT,
  UsdtAmountInput: USDT_AMOUNT_INPUT,
  UsdAmountInput: USD_AMOUNT_INPUT,
  RateInput: RATE_INPUT,
};

function withDocumentation(schema: Schema | undefined, definition: object): Schema | undefined {
  if (!schema) return schema;
  const documentation = documentationOf(definition);
  const result: Schema = { ...schema };
  if (documentation?.description && result.description === undefined) result.description = documentation.description;
  if (documentation?.example !== undefined) result.example = documentation.example;
  if (result.type === 'integer' && result.format === undefined) {
    const fitsInt32 =
      typeof result.minimum === 'number' &&
      typeof result.maximum === 'number' &&
      result.minimum >= INT32_MIN &&
      result.maximum <= INT32_MAX;
    result.format = fitsInt32 ? 'int32' : 'int64';
  }
  return result;
}

// The library's generic signature is too deep for the compiler over these schemas (TS2589), hence the plain one.
const zodToJsonSchema = convertWithLibrary as unknown as (schema: unknown, options: Record<string, unknown>) => unknown;

function convert(schema: ZodTypeAny, definitions: Record<string, ZodTypeAny>): Schema {
  const converted = zodToJsonSchema(schema, {
    target: 'jsonSchema2019-09',
    definitions,
    basePath: ['#', 'components'],
    definitionPath: 'schemas',
    effectStrategy: 'input',
    pipeStrategy: 'output',
    $refStrategy: 'root',
    removeAdditionalStrategy: 'strict',
    postProcess: (jsonSchema: Schema | undefined, definition: object) => withDocumentation(jsonSchema, definition),
  }) as Schema;
  delete converted.$schema;
  return converted;
}

/** Every request body as a component, by name, plus the shared inputs they reference. */
export function requestComponents(bodies: Record<string, ZodTypeAny>): Record<string, Schema> {
  const definitions = { ...SHARED_INPUTS, ...bodies };
  const { schemas } = convert(z.object({}), definitions) as { schemas: Record<string, Schema> };
  return schemas;
}

/** One query parameter's schema (the optional wrapper removed: `required` says it). */
export function parameterSchema(field: ZodTypeAny): { schema: Schema; required: boolean; description?: string } {
  const required = !(field instanceof ZodOptional);
  const inner = field instanceof ZodOptional ? (field.unwrap() as ZodTypeAny) : field;
  const schema = convert(inner, SHARED_INPUTS);
  delete (schema as { schemas?: unknown }).schemas;
  const { description, ...rest } = schema;
  return { schema: rest, required, description: (description as string | undefined) ?? inner.description };
}
