import { RequestHandler, Router } from 'express';
import { requiredScope } from '../../domain/scopes';
import type { AppDependencies } from '../dependencies';
import { notFound } from '../error-envelope';
import { requireScope } from '../middleware/require-scope.middleware';
import { getBalancesHandler } from './balances.route';
import { getFundingHandler } from './funding.route';
import { answerMobileMoneyPushHandler, createMobileMoneyPushHandler } from './mobile-money-push.route';
import { listPayoutDestinationsHandler } from './payout-destinations.route';
import { simulateUsdtDepositHandler } from './sandbox-usdt-deposits.route';
import { healthHandler } from './health.route';
import { createQuoteHandler } from './quotes.route';
import { attachTxHashHandler, createBuyOrderHandler, createSellOrderHandler, getOrderHandler } from './orders.route';
import { setSandboxRateHandler, simulateKesCreditHandler } from './sandbox.route';
import { listAdminsHandler, registerAdminHandler, removeAdminHandler } from './admins.route';
import { confirmWalletHandler, listWalletsHandler, registerWalletHandler, revokeWalletHandler } from './wallets.route';
import { sandboxApproveWalletHandler, sandboxOutboxHandler } from './sandbox-wallets.route';
import { confirmHandler, createTransferHandler, getTransferHandler, resendConfirmationHandler } from './transfers.route';
import { createUsdtSendHandler, getUsdtSendHandler } from './usdt-sends.route';
import { createTransferBatchHandler, getTransferBatchHandler } from './transfer-batches.route';
import {
  createCollectionHandler, getCollectionHandler, listCollectionsHandler, sandboxCollectionDepositHandler, sandboxExpireCollectionHandler,
} from './collections.route';

type Method = 'get' | 'post' | 'patch' | 'delete';

/**
 * Registers a route behind the scope the rule table gives it. A route no rule
 * covers is a programming error and stops the process at start.
 */
function scopedRoutes(router: Router) {
  return (method: Method, path: string, handler: RequestHandler) => {
    const scope = requiredScope(method.toUpperCase(), `/v1${path}`);
    if (!scope) throw new Error(`no scope rule covers ${method.toUpperCase()} /v1${path}`);
    router[method](path, requireScope(scope), handler);
  };
}

/**
 * The authenticated partner routes, mounted at /v1 behind authentication and
 * the rate limit. Paths are case-sensitive and strict (no trailing slash);
 * an unknown path, or a known path with another method, is 404 NOT_FOUND.
 */
export function createV1Router(deps: AppDependencies): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const route = scopedRoutes(router);
  route('get', '/health', healthHandler(deps));
  route('post', '/quotes', createQuoteHandler(deps));
  route('post', '/orders/buy', createBuyOrderHandler(deps));
  route('post', '/orders/sell', createSellOrderHandler(deps));
  route('get', '/orders/:id', getOrderHandler(deps));
  route('patch', '/orders/:id', attachTxHashHandler(deps));
  route('get', '/balances', getBalancesHandler(deps));
  route('get', '/funding', getFundingHandler(deps));
  route('post', '/funding/mobile-money-push', createMobileMoneyPushHandler(deps));
  route('get', '/payout-destinations', listPayoutDestinationsHandler(deps));
  route('post', '/admins', registerAdminHandler(deps));
  route('get', '/admins', listAdminsHandler(deps));
  route('delete', '/admins/:id', removeAdminHandler(deps));
  route('post', '/wallets', registerWalletHandler(deps));
  route('get', '/wallets', listWalletsHandler(deps));
  route('post', '/wallets/:id/confirm', confirmWalletHandler(deps));
  route('delete', '/wallets/:id', revokeWalletHandler(deps));
  route('post', '/collections', createCollectionHandler(deps));
  route('get', '/collections', listCollectionsHandler(deps));
  route('get', '/collections/:id', getCollectionHandler(deps));
  route('post', '/transfers', createTransferHandler(deps));
  route('post', '/transfers/batch', createTransferBatchHandler(deps));
  route('get', '/transfers/batch/:id', getTransferBatchHandler(deps));
  route('get', '/transfers/:id', getTransferHandler(deps));
  route('post', '/confirmations/:id', confirmHandler(deps));
  route('post', '/confirmations/:id/resend', resendConfirmationHandler(deps));
  route('post', '/usdt/sends', createUsdtSendHandler(deps));
  route('get', '/usdt/sends/:id', getUsdtSendHandler(deps));
  if (deps.mode === 'sandbox') {
    route('post', '/sandbox/rates', setSandboxRateHandler(deps));
    route('post', '/sandbox/kes-credits', simulateKesCreditHandler(deps));
    route('post', '/sandbox/usdt-deposits', simulateUsdtDepositHandler(deps));
    route('post', '/sandbox/wallets/:id/approve', sandboxApproveWalletHandler(deps));
    route('get', '/sandbox/outbox', sandboxOutboxHandler(deps));
    route('post', '/sandbox/collections/:id/deposits', sandboxCollectionDepositHandler(deps));
    route('post', '/sandbox/collections/:id/expire', sandboxExpireCollectionHandler(deps));
    route('post', '/sandbox/mobile-money-pushes/:id/approve', answerMobileMoneyPushHandler(deps, 'approve'));
    route('post', '/sandbox/mobile-money-pushes/:id/decline', answerMobileMoneyPushHandler(deps, 'decline'));
  }
  router.use(notFound);
  return router;
}
