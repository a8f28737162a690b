/** Partner administrators (spec section 4, Administrators; scope wallets for writes, read for GET). */
import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import { z } from 'zod';
import type { WalletRegistryApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { presentAdmin } from '../wallet-presenters';
import { parseJsonObject, validateBody } from '../validation';
import { isUuidParam } from './path-params';

// Shape only; the wallet registry applies the strict e-mail rule and the partner's domain.
export const adminRequestSchema = z.object({
  email: z.string().min(1).max(254),
  name: z.string().min(1).max(200),
}).strict();

/** POST /v1/admins → 201 a new administrator, 200 the existing one for an e-mail already registered. */
export function registerAdminHandler(deps: { walletRegistry: Pick<WalletRegistryApi, 'registerAdmin'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(adminRequestSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const result = await deps.walletRegistry.registerAdmin({ partnerId: partnerAuthOf(res).partnerId, email: body.email, name: body.name });
    res.status(result.created ? 201 : 200).json(presentAdmin(result.admin));
  };
}

/** GET /v1/admins → 200 the active administrators, earliest registered first. */
export function listAdminsHandler(deps: { walletRegistry: Pick<WalletRegistryApi, 'listAdmins'> }): RequestHandler {
  return async (_req, res) => {
    const result = await deps.walletRegistry.listAdmins({ partnerId: partnerAuthOf(res).partnerId });
    res.status(200).json(result.admins.map(presentAdmin));
  };
}

/** DELETE /v1/admins/{id} → 204; lapses the administrator's outstanding wallet codes. */
export function removeAdminHandler(deps: { walletRegistry: Pick<WalletRegistryApi, 'removeAdmin'> }): RequestHandler {
  return async (req, res) => {
    const adminId = req.params.id;
    if (!isUuidParam(adminId)) throw new AppError('ADMIN_NOT_FOUND');
    await deps.walletRegistry.removeAdmin({ partnerId: partnerAuthOf(res).partnerId, adminId });
    res.status(204).end();
  };
}
