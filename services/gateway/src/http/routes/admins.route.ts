/**
 * Partner administrators (scope wallets for writes, read for GET). The wallet
 * registry applies the strict e-mail rule and the partner's domain, the new
 * administrator's waiting period, the last-code-recipient rule, and e-mails
 * every administrator of each change.
 */
import type { WalletRegistryApi } from '../dependencies';
import { presentAdmin } from '../wallet-presenters';
import type { OperationHandler } from './operation';

/** POST /v1/admins → 201 a new administrator, 200 the existing one for an e-mail already registered. */
export function registerAdminHandler(deps: {
  walletRegistry: Pick<WalletRegistryApi, 'registerAdmin'>;
}): OperationHandler<'registerAdmin'> {
  return async ({ partnerId, body }, res) => {
    const result = await deps.walletRegistry.registerAdmin({ partnerId, email: body.email, name: body.name });
    res.status(result.created ? 201 : 200).json(presentAdmin(result.admin));
  };
}

/** GET /v1/admins → 200 the active administrators, earliest registered first. */
export function listAdminsHandler(deps: {
  walletRegistry: Pick<WalletRegistryApi, 'listAdmins'>;
}): OperationHandler<'listAdmins'> {
  return async ({ partnerId }, res) => {
    const result = await deps.walletRegistry.listAdmins({ partnerId });
    res.status(200).json(result.admins.map(presentAdmin));
  };
}

/** DELETE /v1/admins/{id} → 204; lapses the administrator's outstanding wallet codes; 409 ADMIN_LAST_CODE_RECIPIENT for the last one who may receive codes. */
export function removeAdminHandler(deps: {
  walletRegistry: Pick<WalletRegistryApi, 'removeAdmin'>;
}): OperationHandler<'removeAdmin'> {
  return async ({ partnerId, params }, res) => {
    await deps.walletRegistry.removeAdmin({ partnerId, adminId: params.id });
    res.status(204).end();
  };
}
