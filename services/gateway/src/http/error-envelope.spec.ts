// Proves the one error mapping: the uniform 401 carries exactly four fields;
// the partner throttle's 429 carries its wait only in headers; refusals keep
// their code, errorCode and retryAfterSeconds; validation names fields; and an
// unexpected error becomes a bare 500 whose message never leaves the process.
import { AppError, validationFailed } from '@platform/errors';
import { createLogger } from '@platform/logger';
import { toAppError, toErrorResponse } from './error-envelope';

const logger = createLogger('gateway-test');
logger.silent = true;

describe('toErrorResponse', () => {
  it('answers the uniform 401 byte for byte apart from requestId', () => {
    const { status, body, headers } = toErrorResponse(
      new AppError('UNAUTHORIZED', { errorCode: 'X', retryAfterSeconds: 3 }),
      'req-1',
    );
    expect(status).toBe(401);
    expect(JSON.stringify(body)).toBe(
      '{"statusCode":401,"message":"An error occurred","error":"unauthorized","requestId":"req-1"}',
    );
    expect(headers).toEqual({});
  });

  it('answers the rate limit with headers and no retryAfterSeconds in the body', () => {
    const { status, body, headers } = toErrorResponse(new AppError('RATE_LIMITED', { retryAfterSeconds: 17 }), 'req-2');
    expect(status).toBe(429);
    expect(JSON.stringify(body)).toBe(
      '{"statusCode":429,"message":"Too Many Requests","error":"Too Many Requests","requestId":"req-2"}',
    );
    expect(headers).toEqual({ 'Retry-After-partner': '17', 'Retry-After': '17' });
  });

  it('keeps a refusal code, its errorCode and retryAfterSeconds', () => {
    const { status, body } = toErrorResponse(
      new AppError('CONFIRMATION_RESEND_COOLDOWN', { retryAfterSeconds: 30, errorCode: 'COOLDOWN' }),
      'r',
    );
    expect(status).toBe(429);
    expect(body).toEqual({
      statusCode: 429,
      message: 'CONFIRMATION_RESEND_COOLDOWN',
      error: 'Too Many Requests',
      requestId: 'r',
      errorCode: 'COOLDOWN',
      retryAfterSeconds: 30,
    });
  });

  it.each([
    [new AppError('INSUFFICIENT_SCOPE'), 403, 'INSUFFICIENT_SCOPE', 'Forbidden'],
    [new AppError('NOT_FOUND'), 404, 'NOT_FOUND', 'Not Found'],
    [new AppError('PAYLOAD_TOO_LARGE'), 413, 'PAYLOAD_TOO_LARGE', 'Payload Too Large'],
    [new AppError('SERVICE_UNAVAILABLE'), 503, 'SERVICE_UNAVAILABLE', 'Service Unavailable'],
    [new AppError('FEE_EXCEEDS_PROCEEDS'), 422, 'FEE_EXCEEDS_PROCEEDS', 'Unprocessable Entity'],
    [validationFailed(['side', 'kesAmount']), 400, 'Validation failed on: side, kesAmount', 'Bad Request'],
  ])('maps %p', (error, status, message, reason) => {
    expect(toErrorResponse(error, 'r').body).toEqual({ statusCode: status, message, error: reason, requestId: 'r' });
  });
});

describe('toAppError', () => {
  it('hides an unexpected error behind INTERNAL_ERROR', () => {
    const error = toAppError(new Error('password=hunter2 at db.ts:12'), logger);
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(toErrorResponse(error, 'r').body)).not.toContain('hunter2');
  });

  it('passes AppErrors through and maps path decoding errors to a validation failure', () => {
    const refusal = new AppError('QUOTE_NOT_FOUND');
    expect(toAppError(refusal, logger)).toBe(refusal);
    expect(toAppError(new URIError('URI malformed'), logger).partnerMessage).toBe('Validation failed on: path');
  });
});
