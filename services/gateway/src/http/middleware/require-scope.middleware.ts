import type { Response } from 'express';
import { AppError } from '@platform/errors';
import type { Scope } from '../../domain/scopes';
import { PartnerAuth, partnerAuthOf } from '../locals';

/**
 * Per operation, before anything of the request is read: an authenticated
 * credential without the operation's scope gets 403 INSUFFICIENT_SCOPE.
 * Returns the authenticated partner.
 */
export function requireScope(res: Response, scope: Scope): PartnerAuth {
  const auth = partnerAuthOf(res);
  if (!auth.scopes.includes(scope)) throw new AppError('INSUFFICIENT_SCOPE');
  return auth;
}
