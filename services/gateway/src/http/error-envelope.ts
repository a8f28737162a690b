/**
 * The one place where failures become HTTP. Every error body
 * is `{statusCode, message, error, requestId, errorCode?, retryAfterSeconds?}`:
 * - an AppError answers its catalogue status with its stable code as `message`
 *   (or the `Validation failed on: …` sentence);
 * - UNAUTHORIZED is the uniform 401 of every authentication failure: message
 *   "An error occurred", error "unauthorized", nothing else, whatever the reason;
 * - RATE_LIMITED is the partner throttle's 429: message "Too Many Requests", the
 *   wait only in the Retry-After-partner (and standard Retry-After) headers, never
 *   `retryAfterSeconds` in the body;
 * - anything else is a bug: logged with its stack here, answered as a bare
 *   500 INTERNAL_ERROR, its message never sent.
 */
import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, HTTP_REASON, isAppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { requestIdOf } from './locals';

export interface ErrorEnvelope {
  statusCode: number;
  message: string;
  error: string;
  requestId: string;
  errorCode?: string;
  retryAfterSeconds?: number;
}

export interface ErrorResponse {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
}

const UNAUTHORIZED_MESSAGE = 'An error occurred';
const RATE_LIMITED_MESSAGE = 'Too Many Requests';

function messageOf(error: AppError): string {
  if (error.code === 'UNAUTHORIZED') return UNAUTHORIZED_MESSAGE;
  if (error.code === 'RATE_LIMITED') return RATE_LIMITED_MESSAGE;
  return error.partnerMessage;
}

/** The status, body and headers answering `error`. Pure. */
export function toErrorResponse(error: AppError, requestId: string): ErrorResponse {
  const status = error.httpStatus;
  const body: ErrorEnvelope = {
    statusCode: status,
    message: messageOf(error),
    error: HTTP_REASON[status] ?? 'Error',
    requestId,
  };
  const headers: Record<string, string> = {};
  if (error.code === 'RATE_LIMITED') {
    const seconds = String(error.retryAfterSeconds ?? 1);
    headers['Retry-After-partner'] = seconds;
    headers['Retry-After'] = seconds;
    return { status, body, headers };
  }
  // The 401 carries nothing beyond the four fields, so no variant can be told apart.
  if (error.code === 'UNAUTHORIZED') return { status, body, headers };
  if (error.errorCode !== undefined) body.errorCode = error.errorCode;
  if (error.retryAfterSeconds !== undefined) body.retryAfterSeconds = error.retryAfterSeconds;
  return { status, body, headers };
}

function isPathDecodingError(error: unknown): boolean {
  return error instanceof URIError || (error as { status?: unknown } | null)?.status === 400;
}

/** An AppError for whatever was thrown; anything unexpected is logged here, once. */
export function toAppError(error: unknown, logger: Logger): AppError {
  if (isAppError(error)) return error;
  // The router refuses a malformed percent-encoding in a path parameter.
  if (isPathDecodingError(error)) return validationFailed(['path']);
  logger.error('unhandled error while serving a request', { error });
  return new AppError('INTERNAL_ERROR');
}

export function sendError(res: Response, error: AppError): void {
  const requestId = requestIdOf(res) ?? randomUUID();
  const { status, body, headers } = toErrorResponse(error, requestId);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status).json(body);
}

/** Express' final error handler (Express 5 routes async rejections here too). */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const appError = toAppError(error, logger);
    // 5xx refusals (a service or store not answering, no live rate, …) are worth an operator's eye.
    if (appError.httpStatus >= 500 && appError.code !== 'INTERNAL_ERROR') {
      logger.warn('request answered with a server-side refusal', { refusal: appError.code });
    }
    if (res.headersSent) {
      // Part of a response is out; the only honest end is to cut the connection.
      res.destroy();
      return;
    }
    sendError(res, appError);
  };
}

/** The 404 for every path (and method) nothing else answered. */
export const notFound: RequestHandler = (_req, _res, next) => next(new AppError('NOT_FOUND'));
