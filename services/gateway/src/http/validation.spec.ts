// Proves request bodies are accepted only as UTF-8 JSON objects sent as
// application/json, and that zod issues become field names: dotted for nested
// fields, every offending field once, in the order the request sent them,
// missing fields after in schema order, unknown fields named too.
import { AppError } from '@platform/errors';
import { z } from 'zod';
import { fieldName, offendingFields, parseJsonObject, validateBody } from './validation';

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof AppError) return error.partnerMessage;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseJsonObject', () => {
  const json = (text: string) => Buffer.from(text, 'utf8');

  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"'])(
    'accepts %p',
    (type) => {
      expect(parseJsonObject(json('{"a":1}'), type)).toEqual({ a: 1 });
    },
  );

  it.each([
    undefined,
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
    'application/jsonx',
  ])('refuses content type %p as body', (type) => {
    expect(messageOf(() => parseJsonObject(json('{"a":1}'), type))).toBe('Validation failed on: body');
  });

  it.each(['', '{"side":', '[1,2]', 'null', '"text"', '42', '{"a":1}x'])('refuses %p as body', (text) => {
    expect(messageOf(() => parseJsonObject(json(text), 'application/json'))).toBe('Validation failed on: body');
  });

  it('refuses invalid UTF-8', () => {
    expect(
      messageOf(() => parseJsonObject(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 'application/json')),
    ).toBe('Validation failed on: body');
  });
});

describe('fieldName', () => {
  it('joins nested paths with dots and indexes arrays', () => {
    expect(fieldName(['side'])).toBe('side');
    expect(fieldName(['destination', 'accountNumber'])).toBe('destination.accountNumber');
    expect(fieldName(['items', 0, 'amount', 'value'])).toBe('items[0].amount.value');
    expect(fieldName([])).toBe('body');
  });
});

describe('validateBody', () => {
  const schema = z
    .object({
      side: z.enum(['buy', 'sell']),
      kesAmount: z
        .string()
        .regex(/^\d+\.\d{2}$/)
        .optional(),
      destination: z.object({ accountNumber: z.string(), accountName: z.string() }).strict().optional(),
    })
    .strict();

  it('returns the parsed body when valid', () => {
    expect(validateBody(schema, { side: 'buy', kesAmount: '10.00' })).toEqual({ side: 'buy', kesAmount: '10.00' });
  });

  it('names every offending field in request order', () => {
    expect(messageOf(() => validateBody(schema, { side: 'hold', kesAmount: 10 }))).toBe(
      'Validation failed on: side, kesAmount',
    );
    expect(messageOf(() => validateBody(schema, { kesAmount: 10, side: 'hold' }))).toBe(
      'Validation failed on: kesAmount, side',
    );
  });

  it('names missing fields after present ones, in schema order', () => {
    expect(messageOf(() => validateBody(schema, { kesAmount: 'x' }))).toBe('Validation failed on: kesAmount, side');
  });

  it('names nested fields with dotted paths', () => {
    expect(messageOf(() => validateBody(schema, { side: 'buy', destination: { accountName: 7 } }))).toBe(
      'Validation failed on: destination.accountName, destination.accountNumber',
    );
  });

  it('names unknown fields', () => {
    expect(messageOf(() => validateBody(schema, { side: 'buy', kesAmout: '1.00' }))).toBe(
      'Validation failed on: kesAmout',
    );
  });

  it('adds cross-field offenders, each once', () => {
    const both = (body: Record<string, unknown>) => ('kesAmount' in body ? ['kesAmount', 'side'] : []);
    expect(messageOf(() => validateBody(schema, { side: 'x', kesAmount: '1.00' }, both))).toBe(
      'Validation failed on: side, kesAmount',
    );
  });
});

describe('offendingFields', () => {
  it('dedupes repeated paths', () => {
    expect(offendingFields({ a: 1 }, [['a'], ['a'], ['b']])).toEqual(['a', 'b']);
  });
});
