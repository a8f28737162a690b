// Proves the plain parser (validation.ts) accepts exactly what zod accepts, with zod's output,
// and leaves everything else to zod: for every operation whose body schema has a plain parser
// (the quote among them), 20,000 generated bodies each, as JSON text parsed as the gateway parses
// it (fields in any order, absent, repeated, unknown, `__proto__`), with values valid and invalid
// for each field (amounts of every scale and length, signs, exponents, white space, other digits,
// the hostile-input fuzzer's texts and non-string JSON). Each body's answer through validateBody
// (plain parser first) equals its answer through zod alone: the same value with its fields in the
// same order, or the same refusal naming the same fields.
import { AppError } from '@platform/errors';
import { OPERATION_LIST } from '@platform/openapi';
import { z } from 'zod';
import { plainParserOf, validateBody, validateBodyWithZod } from './validation';

const BODIES_PER_OPERATION = 20_000;

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (count: number) => Math.floor(next() * count);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)];
  return { next, below, pick };
}
type Random = ReturnType<typeof generator>;

const digitsOf = (random: Random, count: number) =>
  Array.from({ length: count }, () => String(random.below(10))).join('');

/** A decimal string: 0–17 integer digits (sometimes a leading zero), 0–8 decimals (sometimes none after the point). */
function decimal(random: Random): string {
  const integerDigits = random.below(18);
  let integer = integerDigits === 0 ? '0' : `${1 + random.below(9)}${digitsOf(random, integerDigits - 1)}`;
  if (random.next() < 0.05) integer = `0${integer}`;
  if (random.next() < 0.15) integer = '0';
  const decimals = random.below(9);
  const fraction =
    random.next() < 0.3 ? '' : `.${decimals === 0 && random.next() < 0.5 ? '' : digitsOf(random, decimals)}`;
  return `${integer}${fraction}`;
}

/**
 * Every C0 control character (each alone and each before a digit), DEL and the C1 ends, the line and paragraph
 * separators, a bidirectional override, lone surrogates, a byte-order mark, an astral character, a title-case
 * digraph and an escaped NUL: the hostile-input fuzzer's texts among them.
 */
const CONTROLS = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code));
const HOSTILE_TEXTS = [
  ...CONTROLS,
  ...CONTROLS.map((control) => `${control}1`),
  ...['\u001b[31m', '\u007f', '\u0080', '\u009f', '\u2028', '\u2029', '\u202e', '\ud800', '\udfff'],
  ...['\ufeff', '💸', 'ǅ', '%00'],
];
const HOSTILE_MORE = [
  '${x}',
  '<script>',
  "' OR 1=1 --",
  '',
  ' ',
  'buy ',
  'BUY',
  'Sell',
  'hold',
  '１００',
  '١٠٠',
  'NaN',
];
/** Raw JSON that is not a string, as the fuzzer writes it. */
const NOT_STRINGS = ['1e400', '-1e400', '1E-7', '-0', '0', '1e3', '100.00', '-100.00', '9007199254740993', '0.1e1'];
const NOT_STRINGS_MORE = ['true', 'false', 'null', '[]', '{}', '["100.00"]', '{"__proto__":{"polluted":true}}'];

function stringValue(random: Random, options: readonly string[]): string {
  const roll = random.next();
  if (options.length > 0 && roll < 0.7) return random.pick(options);
  if (roll < 0.7) return decimal(random);
  if (roll < 0.75) return random.pick([...HOSTILE_TEXTS, ...HOSTILE_MORE]);
  if (roll < 0.8) return random.pick(['9', 'x', 'é', '💸']).repeat(300 + random.below(3_700));
  const base = decimal(random);
  return random.pick([
    `-${base}`,
    `+${base}`,
    ` ${base}`,
    `${base} `,
    `${base}e2`,
    `${base}\n`,
    `${base},00`,
    `.${base}`,
  ]);
}

function valueText(random: Random, options: readonly string[]): string {
  if (random.next() < 0.06) return random.pick([...NOT_STRINGS, ...NOT_STRINGS_MORE]);
  return JSON.stringify(stringValue(random, options));
}

function bodyText(random: Random, fields: ReadonlyArray<{ name: string; options: readonly string[] }>): string {
  const members: string[] = [];
  for (const { name, options } of fields) {
    if (random.next() < 0.35) continue;
    members.push(`${JSON.stringify(name)}:${valueText(random, options)}`);
    if (random.next() < 0.03) members.push(`${JSON.stringify(name)}:${valueText(random, options)}`);
  }
  if (random.next() < 0.05) {
    const extra = random.pick(['extra', '__proto__', 'constructor', 'Side', 'kesamount', '']);
    members.push(`${JSON.stringify(extra)}:${valueText(random, [])}`);
  }
  for (let index = members.length - 1; index > 0; index -= 1) {
    const other = random.below(index + 1);
    [members[index], members[other]] = [members[other], members[index]];
  }
  return `{${members.join(',')}}`;
}

function answer(validate: () => unknown): { value: string; keys: string[] } | { refused: string } {
  try {
    const value = validate() as Record<string, unknown>;
    return { value: JSON.stringify(value), keys: Object.keys(value) };
  } catch (error) {
    if (error instanceof AppError) return { refused: error.partnerMessage };
    throw error;
  }
}

const plainOperations = OPERATION_LIST.filter(
  (operation) => operation.request && plainParserOf(operation.request.schema) !== null,
);

const quoteSchema = OPERATION_LIST.find((operation) => operation.operationId === 'createQuote')!.request!
  .schema as unknown as z.AnyZodObject;
// The registered KES amount schema, as the quote's shape holds it (optional there).
const KES_AMOUNT_INPUT = (quoteSchema.shape.kesAmount as z.ZodOptional<z.ZodTypeAny>).unwrap();

describe('the plain parser', () => {
  it('serves the quote body', () => {
    expect(plainOperations.map((operation) => operation.operationId)).toContain('createQuote');
  });

  describe.each(plainOperations.map((operation) => [operation.operationId, operation] as const))(
    '%s',
    (_operationId, operation) => {
      const { schema, crossFieldCheck } = operation.request!;
      const shape = (schema as unknown as { shape: Record<string, { unwrap?: () => unknown; options?: string[] }> })
        .shape;
      const fields = Object.entries(shape).map(([name, field]) => {
        const inner = (field.unwrap?.() ?? field) as { options?: string[] };
        return { name, options: inner.options ?? [] };
      });

      it(`answers ${BODIES_PER_OPERATION} generated bodies as zod alone does`, () => {
        const random = generator(0x5eed + operation.operationId.length);
        const plainParser = plainParserOf(schema)!;
        let accepted = 0;
        let acceptedPlainly = 0;
        for (let index = 0; index < BODIES_PER_OPERATION; index += 1) {
          const text = bodyText(random, fields);
          const body = JSON.parse(text) as Record<string, unknown>;
          const plain = answer(() => validateBody(schema, body, crossFieldCheck));
          const zodAlone = answer(() => validateBodyWithZod(schema, JSON.parse(text), crossFieldCheck));
          if (JSON.stringify(plain) !== JSON.stringify(zodAlone))
            expect({ text, plain }).toEqual({ text, plain: zodAlone });
          if ('value' in plain) accepted += 1;
          if (plainParser(JSON.parse(text) as Record<string, unknown>) !== undefined) acceptedPlainly += 1;
        }
        // Both sides of the rule are exercised, and every accepted body that passes the cross-field rule
        // went the plain way (a parser that accepted nothing would pass the comparison above).
        expect(accepted).toBeGreaterThan(BODIES_PER_OPERATION / 50);
        expect(BODIES_PER_OPERATION - accepted).toBeGreaterThan(BODIES_PER_OPERATION / 50);
        expect(acceptedPlainly).toBeGreaterThanOrEqual(accepted);
      });
    },
  );

  it('takes the common quote body the plain way', () => {
    expect(plainParserOf(quoteSchema)!({ side: 'buy', kesAmount: '100' })).toEqual({
      side: 'buy',
      kesAmount: '100.00',
    });
  });

  it('leaves to zod a body that is not a plain object, or has an inherited enumerable key', () => {
    const parser = plainParserOf(quoteSchema)!;
    expect(parser([] as unknown as Record<string, unknown>)).toBeUndefined();
    expect(parser(null as unknown as Record<string, unknown>)).toBeUndefined();
    const inheriting = Object.create({ extra: 'x' }) as Record<string, unknown>;
    Object.assign(inheriting, { side: 'buy', kesAmount: '100' });
    expect(parser(inheriting)).toBeUndefined();
  });

  it.each<[string, z.ZodTypeAny]>([
    ['a stripping object', z.object({ side: z.enum(['buy']) })],
    ['a passthrough object', z.object({ side: z.enum(['buy']) }).passthrough()],
    [
      'a refined strict object',
      z
        .object({ side: z.enum(['buy']) })
        .strict()
        .refine(() => true),
    ],
    [
      'a transformed strict object',
      z
        .object({ side: z.enum(['buy']) })
        .strict()
        .transform((body) => body),
    ],
    ['a preprocessed strict object', z.preprocess((body) => body, z.object({ side: z.enum(['buy']) }).strict())],
    ['a nullable field', z.object({ kesAmount: KES_AMOUNT_INPUT.nullable() }).strict()],
    ['a defaulted field', z.object({ side: z.enum(['buy']).default('buy') }).strict()],
    ['a refined amount', z.object({ kesAmount: KES_AMOUNT_INPUT.refine(() => true) }).strict()],
    ['a described amount (a new schema)', z.object({ kesAmount: KES_AMOUNT_INPUT.describe('x') }).strict()],
    ['a nested object', z.object({ destination: z.object({ side: z.enum(['buy']) }).strict() }).strict()],
    ['a literal', z.object({ side: z.literal('buy') }).strict()],
    ['a boolean', z.object({ flag: z.boolean() }).strict()],
    ['a plain string', z.object({ note: z.string() }).strict()],
  ])('is not made for %s', (_name, schema) => {
    expect(plainParserOf(schema)).toBeNull();
  });
});
