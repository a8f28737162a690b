// Proves the collections list query is parsed strictly by the operation table's
// schema (each parameter once, unknown ones refused, every bad one named, times
// normalised to UTC, the limit a number) and that a collection is presented
// with its account number masked and absent amounts as null.
import { AppError } from '@platform/errors';
import { OPERATIONS } from '@platform/openapi';
import { validateQuery } from '../validation';
import { presentCollection } from './collections.route';

const parseListQuery = (rawQuery: string) => validateQuery(OPERATIONS.listCollections.query, rawQuery);

function refusedFields(query: string): string | undefined {
  try {
    parseListQuery(query);
  } catch (error) {
    if (error instanceof AppError) return error.message;
    throw error;
  }
  return undefined;
}

describe('collections list query', () => {
  it('accepts every documented parameter', () => {
    expect(
      parseListQuery(
        'reference=ABCDE-12345&status=open&from=2026-01-01&to=2026-01-02T00:00:00%2B03:00&limit=100&cursor=abc_-1',
      ),
    ).toEqual({
      reference: 'ABCDE-12345',
      status: 'open',
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-01T21:00:00.000Z',
      limit: 100,
      cursor: 'abc_-1',
    });
    expect(parseListQuery('')).toEqual({});
  });

  it('names every bad, repeated or unknown parameter', () => {
    expect(refusedFields('status=nope')).toBe('Validation failed on: status');
    expect(refusedFields('limit=0')).toBe('Validation failed on: limit');
    expect(refusedFields('limit=101')).toBe('Validation failed on: limit');
    expect(refusedFields('from=2026-02-30T25:00:00Z')).toBe('Validation failed on: from');
    expect(refusedFields('to=tomorrow')).toBe('Validation failed on: to');
    expect(refusedFields('from=2026-02-30')).toBe('Validation failed on: from');
    expect(refusedFields('to=2026-04-31T10:00:00Z')).toBe('Validation failed on: to');
    expect(refusedFields('to=2026-04-30T10:60:00Z')).toBe('Validation failed on: to');
    expect(refusedFields('from=2026-04-30T10:00:00%2B24:00')).toBe('Validation failed on: from');
    expect(parseListQuery('from=2028-02-29T23:59:59.999Z')).toEqual({ from: '2028-02-29T23:59:59.999Z' });
    expect(refusedFields('cursor=a%20b')).toBe('Validation failed on: cursor');
    expect(refusedFields('status=open&status=credited')).toBe('Validation failed on: status');
    expect(refusedFields('page=2&status=x')).toBe('Validation failed on: page, status');
  });
});

describe('presentCollection', () => {
  it('masks the account number and shows absent amounts as null', () => {
    const view = presentCollection({
      id: 'c',
      partnerId: 'p',
      reference: 'R',
      status: 'open',
      currency: 'USD',
      partnerReference: 'inv',
      payerLabel: 'Payer',
      depositInstructions: {
        beneficiaryName: 'B',
        bankName: 'Bank',
        routingNumber: '011000015',
        accountNumber: '912345678901',
        rails: ['ach_push'],
        depositMessage: 'Reference R',
      },
      fee: { percentBps: 100, flatMinor: '30', capMinor: '2500', currency: 'USD' },
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-08T00:00:00.000Z',
    });
    expect(view.depositInstructions?.accountNumber).toBe('****8901');
    expect(view.fee).toEqual({ percentBps: 100, flatMinor: 30, capMinor: 2500, currency: 'USD' });
    expect(view).toMatchObject({
      expectedAmount: null,
      grossAmount: null,
      feeAmount: null,
      netAmount: null,
      amountMismatch: null,
      treasuryCreditTxId: null,
    });
    expect(JSON.stringify(view)).not.toContain('912345678901');
  });
});
