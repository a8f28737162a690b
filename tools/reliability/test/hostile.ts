/**
 * fast-check arbitraries for hostile requests. Body values are produced as raw
 * JSON text fragments, so huge numbers, exponent notation, duplicate keys and
 * `__proto__` keys reach the gateway exactly as written. Every value a field
 * generator yields is certainly invalid for that field kind (see routes.ts), so
 * a hostile body can never be accepted and nothing may be written.
 */
import { UUID_PATTERN } from '@platform/ids';
import fc from 'fast-check';
import type { FieldKind, RouteUnderTest } from './routes';
import { validBody } from './routes';

/** The gateway refuses bodies over 64 KiB with 413. */
export const BODY_LIMIT_BYTES = 64 * 1024;
const LONG_STRING_LENGTH_MIN = 300;
const LONG_STRING_LENGTH_MAX = 4_000;
const SCALES: Partial<Record<FieldKind, number>> = { kes: 2, usdt: 6, usd: 2, rate: 4 };
const AMOUNT_INTEGER_DIGITS_MAX = 15;

const json = (value: unknown) => JSON.stringify(value);

/** Any string, including control characters, lone surrogates, astral and right-to-left characters. */
export const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    '\u001b[31m',
    '\r\n',
    '\u2028',
    '\u202e',
    '\ud800',
    '\udfff',
    '\ufeff',
    '💸',
    'ǅ',
    '%00',
    '${x}',
    '<script>',
    "' OR 1=1 --",
  ),
);

const longText = fc
  .integer({ min: LONG_STRING_LENGTH_MIN, max: LONG_STRING_LENGTH_MAX })
  .chain((length) => fc.constantFrom('x', '9', 'é', '💸', '\u0000').map((unit) => unit.repeat(length)));

/** JSON that is not a string: numbers written every way, booleans, null, arrays, objects with polluting keys. */
const wrongType = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(json),
  fc.constantFrom(
    '1e400',
    '-1e400',
    '1E-7',
    '-0',
    '0',
    '1e3',
    '100.00',
    '123456789012345678901234567890.123456789',
    '0.1e1',
    '-100.00',
    '9007199254740993',
  ),
  fc.constantFrom(
    'true',
    'false',
    'null',
    '[]',
    '{}',
    '[{"__proto__":{"polluted":true}}]',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"prototype":null}',
  ),
  fc.array(anyText, { maxLength: 3 }).map(json),
);

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

/** Decimal strings no amount or rate of `scale` decimals accepts. */
function badDecimal(scale: number) {
  const positive = fc
    .tuple(fc.integer({ min: 1, max: 999_999 }), digits(0, scale))
    .map(([whole, fraction]) => (fraction ? `${whole}.${fraction}` : String(whole)));
  return fc.oneof(
    fc.constantFrom(
      '1e3',
      '1E3',
      '1e+2',
      '1.5e2',
      '1e-2',
      '0x1F',
      'NaN',
      'Infinity',
      '-Infinity',
      '+1.00',
      ' 1.00',
      '1.00 ',
      '1,000.00',
      '1_000',
      '.5',
      '5.',
      '',
      '00',
      '01.00',
      '0',
      '0.0',
      '0.00',
      '0.000000',
      '-0',
      '１００',
      '١٠٠',
      '1.00\u0000',
      '1\u200b00',
      '1..0',
    ),
    positive.map((value) => `-${value}`),
    fc
      .tuple(fc.integer({ min: 0, max: 999_999 }), digits(scale + 1, scale + 12))
      .map(([whole, fraction]) => `${whole}.${fraction}`),
    fc
      .tuple(fc.integer({ min: 1, max: 9 }), digits(AMOUNT_INTEGER_DIGITS_MAX, 60), digits(0, scale))
      .map(([first, rest, fraction]) => `${first}${rest}${fraction ? `.${fraction}` : ''}`),
    fc
      .tuple(
        positive,
        anyText.filter((text) => text.length > 0 && !/^\d+$/.test(text)),
      )
      .map(([value, tail]) => `${value}${tail}`),
  );
}

/** Strings that fail `pattern` (checked, so the generator can never produce a valid value). */
const failing = (pattern: RegExp, ...extra: fc.Arbitrary<string>[]) =>
  fc.oneof(anyText, longText, ...extra).filter((text) => !pattern.test(text));

/** Raw JSON fragments certainly invalid for a field of `kind` (`adminDomain`: the partner's administrator domain). */
export function hostileValue(kind: FieldKind, adminDomain: string): fc.Arbitrary<string> {
  const scale = SCALES[kind];
  if (scale !== undefined) return fc.oneof(wrongType, badDecimal(scale).map(json));
  const strings = ((): fc.Arbitrary<string> => {
    switch (kind) {
      case 'side':
        return failing(/^(buy|sell)$/, fc.constantFrom('BUY', 'Sell', 'buy ', 'hold', 'bսy'));
      case 'literal':
        return failing(
          /^(tron|USDT|USD)$/,
          fc.constantFrom('TRON', 'usdt', 'trоn', 'ethereum', 'USDT\u0000', 'usd', 'KES'),
        );
      case 'uuid':
        return failing(UUID_PATTERN, fc.constantFrom('', '00000000-0000-0000-0000-00000000000', 'A'.repeat(36)));
      case 'phone':
        return failing(
          /^(0[17]\d{8}|\+?254[17]\d{8})$/,
          fc.constantFrom('0812345678', '+254 712345678', '712345678', '07123456789', '٠٧١٢٣٤٥٦٧٨'),
        );
      case 'email':
        return fc
          .oneof(
            anyText,
            longText,
            fc.constantFrom('a@b', '@', 'x@evil.test', 'a b@x.test'),
            anyText.map((text) => `${text}@${adminDomain}\u0000`),
          )
          .filter((text) => !text.toLowerCase().endsWith(`@${adminDomain}`));
      case 'name':
        return fc.oneof(
          fc.constantFrom('', ' ', '\t\n', '\u0000', 'ok\u0007name'),
          longText.map((text) => `x${text}`),
          anyText.map((text) => `a\u0001${text}`),
        );
      case 'label':
        return fc.oneof(
          longText.map((text) => `x${text}`),
          anyText.map((text) => `a\u0000${text}`),
          fc.constantFrom('\u2028', 'a\u009fb'),
        );
      case 'reference':
        return failing(/^[A-Za-z0-9._-]{1,64}$/);
      case 'otp':
        return failing(/^\d{6}$/, fc.constantFrom('12345', '1234567', '١٢٣٤٥٦', '12345\u0000', ' 123456', '123 456'));
      case 'txHash':
        return failing(
          /^(0x)?[0-9a-f]{64}$/,
          fc.constantFrom('A'.repeat(64), `0X${'a'.repeat(64)}`, 'a'.repeat(63), 'a'.repeat(65)),
        );
      case 'tronAddress':
        return failing(
          /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
          fc.constantFrom(
            'T'.repeat(34),
            '0x0000000000000000000000000000000000000000',
            'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
          ),
        );
      case 'boolean':
        return fc.constantFrom('true', 'false', 'yes', '');
      case 'rail':
        return failing(
          /^(mobile_money|pesalink|rtgs|eft)$/,
          fc.constantFrom('MOBILE_MONEY', 'mobile-money', 'swift', 'mobile_money '),
        );
      case 'idempotencyKey':
        return failing(/^[A-Za-z0-9._:-]{1,128}$/, fc.constantFrom('', 'a b', 'k'.repeat(129), 'key\u0000'));
      case 'object':
        return fc.oneof(anyText, fc.constantFrom(''));
      default:
        throw new Error(`no hostile strings for field kind ${kind}`);
    }
  })();
  // An optional boolean refuses every string and null; a string field refuses every non-string.
  const others = kind === 'boolean' ? fc.constantFrom('0', '1', 'null', '[]', '{}', '"true"') : wrongType;
  return fc.oneof(others, strings.map(json));
}

export interface HostileBody {
  what: string;
  text: string;
  contentType: string;
}

const APPLICATION_JSON = 'application/json';
const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype'];

function objectText(entries: Array<[string, string]>): string {
  return `{${entries.map(([key, fragment]) => `${json(key)}:${fragment}`).join(',')}}`;
}

/** Hostile bodies for a route that takes one: broken fields, polluting or duplicate keys, bad JSON, wrong media types, oversize. */
export function hostileBody(route: RouteUnderTest, adminDomain: string): fc.Arbitrary<HostileBody> {
  const fields = Object.entries(route.body ?? {});
  const valid = () => Object.entries(validBody(route)).map(([key, value]) => [key, json(value)] as [string, string]);
  const validText = () => JSON.stringify(validBody(route));
  // One to all fields replaced with hostile values (the rest stay valid).
  const brokenFields = fc
    .tuple(
      ...fields.map(([name, spec]) =>
        fc.option(hostileValue(spec.kind, adminDomain), { nil: undefined }).map((value) => [name, value] as const),
      ),
    )
    .filter((pairs) => pairs.some(([, value]) => value !== undefined))
    .map((pairs) => {
      const entries = valid().filter(([key]) => !pairs.some(([name, value]) => name === key && value !== undefined));
      for (const [name, value] of pairs) if (value !== undefined) entries.push([name, value]);
      return { what: 'broken fields', text: objectText(entries), contentType: APPLICATION_JSON };
    });
  const polluted = fc
    .tuple(
      fc.constantFrom(...POLLUTING_KEYS),
      fc.constantFrom('{"polluted":true}', '{"prototype":{"polluted":true}}', 'null', '1', '"x"'),
    )
    .map(([key, value]) => ({
      what: `polluting key ${key}`,
      text: objectText([...valid(), [key, value]]),
      contentType: APPLICATION_JSON,
    }));
  // Last one wins in JSON.parse: the duplicate carries the hostile value.
  const duplicated = fc.constantFrom(...fields).chain(([name, spec]) =>
    hostileValue(spec.kind, adminDomain).map((value) => ({
      what: `duplicate key ${name}`,
      text: objectText([...valid(), [name, json(spec.valid() ?? 'x')], [name, value]]),
      contentType: APPLICATION_JSON,
    })),
  );
  const malformed = fc
    .oneof(
      fc.nat().map((cut) => {
        const text = validText();
        return text.slice(0, cut % text.length);
      }),
      fc.constantFrom(
        '[]',
        '"text"',
        '1',
        'null',
        'true',
        "{'side':'buy'}",
        '{"a":1,}',
        '{"a":NaN}',
        '{"a":1}//',
        '{"a":1}}',
        '{"a":01}',
        '{"a":"\\x41"}',
        '{"a":"\u0000"}',
        '{"a":"\\ud800"',
        `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
        `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`,
      ),
    )
    .map((text) => ({ what: 'malformed JSON', text, contentType: APPLICATION_JSON }));
  const wrongMedia = fc
    .constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/jsonx',
      'application/json-patch+json',
      'APPLICATION/XML',
    )
    .map((contentType) => ({ what: `content type ${contentType}`, text: validText(), contentType }));
  const oversized = fc.integer({ min: BODY_LIMIT_BYTES + 1, max: BODY_LIMIT_BYTES * 3 }).map((size) => ({
    what: `oversized ${size} B`,
    text: objectText([...valid(), ['pad', json('x'.repeat(size))]]),
    contentType: APPLICATION_JSON,
  }));
  return fc.oneof(
    { arbitrary: brokenFields, weight: 6 },
    { arbitrary: polluted, weight: 1 },
    { arbitrary: duplicated, weight: 1 },
    { arbitrary: malformed, weight: 2 },
    { arbitrary: wrongMedia, weight: 1 },
    { arbitrary: oversized, weight: 1 },
  );
}

/** Path ids that name no resource: random UUIDs and everything that is not a lowercase UUID. */
export const hostileId = fc
  .oneof(
    fc.uuid(),
    fc.uuid().map((id) => id.toUpperCase()),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }),
    fc.constantFrom(
      '0',
      '-1',
      '1e3',
      'null',
      'undefined',
      '__proto__',
      'constructor',
      'prototype',
      '%00',
      '00000000-0000-0000-0000-000000000000x',
      '{00000000-0000-0000-0000-000000000000}',
      'x'.repeat(2_000),
    ),
  )
  .filter((id) => !/^\.+$/.test(id)); // `.` and `..` are resolved away by the URL parser before anything is sent

/** Hostile query strings (polluting keys, arrays, unicode); reads ignore unknown parameters, writes refuse by their body. */
export const hostileQuery = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          '__proto__',
          '__proto__[polluted]',
          'constructor[prototype][polluted]',
          'prototype',
          'a[]',
          'a[b][c]',
        ),
        anyText,
      ),
      fc.oneof(anyText, longText),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((pairs) => `?${pairs.map(([key, value]) => `${queryComponent(key)}=${queryComponent(value)}`).join('&')}`);

/**
 * Percent-encoded as fetch would send it: the URL parser encodes `'` in a query
 * (encodeURIComponent does not), and the signature covers the query as sent.
 */
function queryComponent(text: string): string {
  return encodeURIComponent(wellFormed(text)).replace(/'/g, '%27');
}

/** encodeURIComponent refuses lone surrogates; they are replaced by U+FFFD, as a browser would. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
