import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import type { Scope } from '../../domain/scopes';
import { partnerAuthOf } from '../locals';

/** Per route: an authenticated credential without the route's scope gets 403 INSUFFICIENT_SCOPE. */
export function requireScope(scope: Scope): RequestHandler {
  return (_req, res, next) => {
    if (!partnerAuthOf(res).scopes.includes(scope)) throw new AppError('INSUFFICIENT_SCOPE');
    next();
  };
}
