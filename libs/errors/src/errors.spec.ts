// Proves the catalogue is self-consistent and that errors survive a round trip
// through the serialisable payload used on gRPC.
import { AppError, ERROR_CATALOGUE, fromPayload, HTTP_REASON, toPayload, validationFailed } from './index';

describe('error catalogue', () => {
  it('gives every code an HTTP status with a reason phrase', () => {
    for (const [code, definition] of Object.entries(ERROR_CATALOGUE)) {
      expect(HTTP_REASON[definition.httpStatus]).toBeDefined();
      expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
    }
  });

  it('maps the spec codes to the spec statuses', () => {
    expect(ERROR_CATALOGUE.QUOTE_EXPIRED_OR_CONSUMED.httpStatus).toBe(409);
    expect(ERROR_CATALOGUE.INSUFFICIENT_KES_BALANCE.httpStatus).toBe(422);
    expect(ERROR_CATALOGUE.KES_DEBIT_AMBIGUOUS.httpStatus).toBe(503);
    expect(ERROR_CATALOGUE.WALLET_CODE_LOCKED.httpStatus).toBe(403);
    expect(ERROR_CATALOGUE.CONFIRMATION_LOCKED.httpStatus).toBe(409);
    // Not lifted by waiting, so not a 429 that clients would retry by themselves.
    expect(ERROR_CATALOGUE.PARTNER_CONFIRMATIONS_LOCKED.httpStatus).toBe(403);
  });
});

describe('AppError', () => {
  it('shows a made-up field name as escaped ASCII, never its raw characters', () => {
    expect(validationFailed(['destination.accountNumber', 'items[0].amount']).partnerMessage).toBe(
      'Validation failed on: destination.accountNumber, items[0].amount',
    );
    expect(validationFailed(['\u2028', 'a b', 'x\u0000\u00e9']).partnerMessage).toBe(
      'Validation failed on: "\\u2028", "a b", "x\\u0000\\u00e9"',
    );
  });

  it('names every field in the validation message, once each', () => {
    const error = validationFailed(['side', 'kesAmount', 'side']);
    expect(error.partnerMessage).toBe('Validation failed on: side, kesAmount');
    expect(error.httpStatus).toBe(400);
  });

  it('round-trips through the payload', () => {
    const original = new AppError('CONFIRMATION_RESEND_COOLDOWN', { retryAfterSeconds: 30 });
    const copy = fromPayload(JSON.parse(JSON.stringify(toPayload(original))));
    expect(copy?.code).toBe('CONFIRMATION_RESEND_COOLDOWN');
    expect(copy?.retryAfterSeconds).toBe(30);
  });

  it('refuses unknown codes from the wire', () => {
    expect(fromPayload({ code: 'MADE_UP' })).toBeNull();
    expect(fromPayload('x')).toBeNull();
  });
});
