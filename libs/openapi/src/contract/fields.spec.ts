/**
 * Proves each amount and rate input, checked and normalised in one step, accepts, normalises and
 * refuses exactly what its former shape did (the length and the pattern, then a `refine` and a
 * `transform` that parsed the value again): the same success, the same output and the same
 * refused paths for every value below, alone and as a field of an object. Only the number of
 * issues at a refused path may differ (the former `refine` added its own after a failed pattern),
 * and the gateway names fields, never issues. Each one's plain check (the gateway's way past zod
 * for a common body) accepts exactly what its schema accepts, with the same value.
 */
import {
  AMOUNT_INTEGER_DIGITS_MAX,
  CURRENCY_SCALE,
  Currency,
  decimalPattern,
  formatAmount,
  formatDecimal,
  parseDecimal,
  parsePositiveAmount,
  RATE_SCALE,
} from '@platform/money';
import { z, ZodTypeAny } from 'zod';
import { KES_AMOUNT_INPUT, plainCheckOf, RATE_INPUT, USD_AMOUNT_INPUT, USDT_AMOUNT_INPUT } from './fields';

function formerAmount(currency: Currency): ZodTypeAny {
  const scale = CURRENCY_SCALE[currency];
  return z
    .string()
    .max(AMOUNT_INTEGER_DIGITS_MAX + 1 + scale)
    .regex(decimalPattern(scale))
    .refine((value) => parsePositiveAmount(value, currency) !== null, `a positive ${currency} amount`)
    .transform((value) => formatAmount(parsePositiveAmount(value, currency)!, currency));
}

const FORMER_RATE = z
  .string()
  .max(AMOUNT_INTEGER_DIGITS_MAX + 1 + RATE_SCALE)
  .regex(decimalPattern(RATE_SCALE))
  .refine((value) => parseDecimal(value, RATE_SCALE)?.gt(0) === true, 'a positive rate with at most 4 decimals')
  .transform((value) => formatDecimal(parseDecimal(value, RATE_SCALE)!, RATE_SCALE));

const VALUES: unknown[] = [
  ...['0', '0.0', '0.00', '0.000000', '00', '01', '1', '1.', '.5', '1.5', '1.50', '1.500', '1.5000', '1.50000'],
  ...['1.500000', '1.5000000', '100.00', '100.001', '0.01', '0.001', '0.0001', '0.000001', '0.0000001'],
  ...['999999999999999', '999999999999999.99', '9999999999999999', '1000000000000000', '123456789012345.123456'],
  ...['-1', '-0', '+1', ' 1', '1 ', '1,00', '1e3', '1E3', 'Infinity', 'NaN', '0x10', '١٢', '1\n', '', ' '],
  ...['12.3.4', '1..2', '１', `${'9'.repeat(40)}`, '1'.padEnd(24, '0'), '130.0000', '129.5'],
  ...[0, 1, 1.5, -1, NaN, Infinity, null, undefined, true, {}, [], ['1'], { amount: '1' }, 10n],
];

function outcome(schema: ZodTypeAny, value: unknown) {
  const result = schema.safeParse(value);
  if (result.success) return { success: true, data: result.data as unknown };
  return { success: false, paths: [...new Set(result.error.issues.map((issue) => JSON.stringify(issue.path)))] };
}

describe.each<[string, ZodTypeAny, ZodTypeAny, string, string]>([
  ['KES', KES_AMOUNT_INPUT, formerAmount('KES'), '7.50', 'a positive KES amount'],
  ['USDT', USDT_AMOUNT_INPUT, formerAmount('USDT'), '7.500000', 'a positive USDT amount'],
  ['USD', USD_AMOUNT_INPUT, formerAmount('USD'), '7.50', 'a positive USD amount'],
  ['rate', RATE_INPUT, FORMER_RATE, '7.5000', 'a positive rate with at most 4 decimals'],
])('%s input, parsed once', (_name, schema, former, sevenAndAHalf, zeroRefusal) => {
  it.each(
    VALUES.map((value) => [typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value)), value]),
  )('%s: as before', (_label, value) => {
    expect(outcome(schema, value)).toEqual(outcome(former, value));
    const inObject = (field: ZodTypeAny) => z.object({ side: z.enum(['buy']), amount: field.optional() }).strict();
    expect(outcome(inObject(schema), { amount: value, side: 'sell' })).toEqual(
      outcome(inObject(former), { amount: value, side: 'sell' }),
    );
    expect(outcome(inObject(schema), { side: 'buy', amount: value })).toEqual(
      outcome(inObject(former), { side: 'buy', amount: value }),
    );
  });

  it('has a plain check that accepts, with the same value, exactly what the schema accepts', () => {
    const check = plainCheckOf(schema)!;
    for (const value of VALUES) {
      const parsed = schema.safeParse(value);
      expect({ value, checked: check(value) }).toEqual({ value, checked: parsed.success ? parsed.data : undefined });
    }
  });

  it('normalises to the scale and refuses zero with its message', () => {
    expect(schema.safeParse('7.5').data).toBe(sevenAndAHalf);
    const zero = schema.safeParse('0.00');
    expect(zero.success).toBe(false);
    expect(zero.error?.issues).toEqual([expect.objectContaining({ code: 'custom', path: [], message: zeroRefusal })]);
  });
});
