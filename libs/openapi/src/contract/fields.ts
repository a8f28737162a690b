/**
 * The zod pieces partner requests are built from. Each one states its limits
 * (a maximum length and a pattern, an enum or a literal), so the gateway's
 * validation and the API reference, which is derived from these schemas, agree
 * on every limit by construction. Money is a decimal string, never a JSON
 * number, checked by @platform/money and normalised to the currency's scale.
 */
import { isValidTronAddress } from '@platform/chain';
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
import { documented } from './documentation';

/** No control characters (C0, DEL, C1) and no line or paragraph separators. */
export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;
/** At least one character that is not white space. */
export const SOMETHING_VISIBLE = /\S/;
/** Both of the above: visible text without control characters. */
const VISIBLE_TEXT = /^(?=[\s\S]*\S)[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;
/** Partner-chosen keys: letters, digits and `._:-`. */
export const KEY_CHARACTERS = /^[A-Za-z0-9._:-]{1,64}$/;
export const SIX_DIGITS = /^[0-9]{6}$/;
/** A TRON transaction hash: 64 lowercase hex characters, an optional 0x prefix (stripped). */
export const TX_HASH = /^(0x)?[0-9a-f]{64}$/;
/** TRON base58check: 34 characters, leading T (the checksum is verified besides). */
export const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/** Ids a partner sends in a body are UUIDs; one that names nothing answers that resource's 404, so only the length is refused here. */
export const ID_LENGTH_MAX = 64;
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/** Text of at most `lengthMax` characters without control characters. */
export function text(lengthMax: number) {
  return z.string().max(lengthMax).regex(NO_CONTROL_CHARACTERS);
}

/** Text of at most `lengthMax` characters without control characters, with at least one visible character. */
export function visibleText(lengthMax: number) {
  return z.string().max(lengthMax).regex(VISIBLE_TEXT);
}

/** A reference to another resource by id: printable ASCII, bounded; the service answers its 404 for an unknown or malformed one. */
export function resourceId() {
  return z.string().max(ID_LENGTH_MAX).regex(PRINTABLE_ASCII);
}

const amountLengthMax = (scale: number) => AMOUNT_INTEGER_DIGITS_MAX + 1 + scale;

/**
 * A value that passed its length and pattern but is not what the field takes (zero, say):
 * the field's refusal, at the field's path. Amounts are checked and normalised in one step
 * that parses the value once (a `refine` then a `transform` parsed it twice and cost a zod
 * context each, on every amount of every request). The step runs only after the length and
 * the pattern pass, where `refine` ran after either failed too; the refused fields are the
 * same (fields.spec.ts), and so is the reference: effects are described by their input.
 */
function refuse(context: z.RefinementCtx, message: string): never {
  context.addIssue({ code: z.ZodIssueCode.custom, message });
  return z.NEVER;
}

/**
 * Each amount and rate input's rule as a plain function beside its schema, the one place it is
 * written: the value normalised when the schema accepts it, undefined when it refuses it. The
 * gateway accepts a common body with these without zod's per-parse objects, and leaves every
 * refusal to zod (services/gateway/src/http/validation.ts).
 */
const plainChecks = new WeakMap<ZodTypeAny, (value: unknown) => string | undefined>();

/** The plain check of an amount or rate input (above); undefined for any other schema. */
export function plainCheckOf(schema: ZodTypeAny): ((value: unknown) => string | undefined) | undefined {
  return plainChecks.get(schema);
}

/** A decimal string of at most `lengthMax` characters in `pattern`, normalised by `normalise` (null: refused), as a schema and its plain check. */
function decimalInput(
  lengthMax: number,
  pattern: RegExp,
  normalise: (value: string) => string | null,
  refusal: string,
) {
  // The plain check below restates this chain by hand (the gateway accepts a body through it without zod):
  // any step added here must be added there too, or the plain path would accept what zod refuses.
  const schema = z
    .string()
    .max(lengthMax)
    .regex(pattern)
    .transform((value, context) => normalise(value) ?? refuse(context, refusal));
  plainChecks.set(schema, (value) =>
    typeof value === 'string' && value.length <= lengthMax && pattern.test(value)
      ? (normalise(value) ?? undefined)
      : undefined,
  );
  return schema;
}

const AMOUNT_EXAMPLE: Record<Currency, string> = { KES: '1000.00', USDT: '10.000000', USD: '250.00' };

/** A positive amount of `currency` with at most its scale of decimals; normalised to exactly that scale. */
function positiveAmount(currency: Currency) {
  const scale = CURRENCY_SCALE[currency];
  const schema = decimalInput(
    amountLengthMax(scale),
    decimalPattern(scale),
    (value) => {
      const amount = parsePositiveAmount(value, currency);
      return amount === null ? null : formatAmount(amount, currency);
    },
    `a positive ${currency} amount`,
  );
  return documented(schema, {
    description: `A positive ${currency} amount as a decimal string, at most ${scale} decimals (never a JSON number); answered at exactly ${scale}`,
    example: AMOUNT_EXAMPLE[currency],
  });
}

/** One schema per currency, so the document names each once (KesAmountInput, …). */
export const KES_AMOUNT_INPUT = positiveAmount('KES');
export const USDT_AMOUNT_INPUT = positiveAmount('USDT');
export const USD_AMOUNT_INPUT = positiveAmount('USD');

/** A positive rate with at most 4 decimals; normalised to exactly 4. */
export const RATE_INPUT = documented(
  decimalInput(
    amountLengthMax(RATE_SCALE),
    decimalPattern(RATE_SCALE),
    (value) => {
      const rate = parseDecimal(value, RATE_SCALE);
      return rate?.gt(0) === true ? formatDecimal(rate, RATE_SCALE) : null;
    },
    'a positive rate with at most 4 decimals',
  ),
  { description: 'A positive rate (KES per 1 USDT), at most 4 decimals; answered at exactly 4', example: '129.5000' },
);

/** 64 lowercase hex characters; a leading 0x is accepted and stripped. */
export const TX_HASH_INPUT = documented(
  z
    .string()
    .max(66)
    .regex(TX_HASH)
    .transform((value) => value.replace(/^0x/, '')),
  { description: 'TRON transaction hash: 64 lowercase hex characters; a 0x prefix is accepted and stripped' },
);

export const TRON_ADDRESS_INPUT = documented(
  z.string().max(34).regex(TRON_ADDRESS).refine(isValidTronAddress, 'a TRON address with a valid checksum'),
  { description: 'TRON base58check address: 34 characters, leading T, checksum verified' },
);

/** A 6-digit code; a malformed one is refused as a request error and never counted as a guess. */
export const SIX_DIGIT_CODE = documented(z.string().max(6).regex(SIX_DIGITS), {
  description: 'The 6-digit code',
  example: '123456',
});
