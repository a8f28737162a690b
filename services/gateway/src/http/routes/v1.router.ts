/**
 * The authenticated partner routes, mounted at /v1 behind authentication and
 * the rate limit, registered from the operation table (@platform/openapi): each
 * operation's path, method and scope, its body and query validated with the
 * table's schemas, every path id checked to be a UUID (else the operation's
 * 404), then its handler. The handler map is typed by operationId, so an
 * operation without a handler, or a handler without an operation, does not
 * compile. Paths are case-sensitive and strict (no trailing slash); an unknown
 * path, or a known path with another method, is 404 NOT_FOUND.
 */
import { Request, RequestHandler, Response, Router } from 'express';
import { AppError } from '@platform/errors';
import { Operation, OPERATION_LIST, OperationId, pathParameterNames } from '@platform/openapi';
import type { AppDependencies } from '../dependencies';
import { notFound } from '../error-envelope';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { requireScope } from '../middleware/require-scope.middleware';
import { parseJsonObject, rawQueryOf, validateBody, validateQuery } from '../validation';
import { listAdminsHandler, registerAdminHandler, removeAdminHandler } from './admins.route';
import { getBalancesHandler, listAccountTransactionsHandler } from './balances.route';
import {
  createCollectionHandler,
  getCollectionHandler,
  listCollectionsHandler,
  sandboxCollectionDepositHandler,
  sandboxExpireCollectionHandler,
} from './collections.route';
import { getFundingHandler } from './funding.route';
import { healthHandler } from './health.route';
import {
  answerMobileMoneyPushHandler,
  createMobileMoneyPushHandler,
  listMobileMoneyPushesHandler,
} from './mobile-money-push.route';
import type { OperationHandler } from './operation';
import {
  attachTxHashHandler,
  createBuyOrderHandler,
  createSellOrderHandler,
  getOrderHandler,
  listOrdersHandler,
} from './orders.route';
import { listPayoutDestinationsHandler } from './payout-destinations.route';
import { createQuoteHandler } from './quotes.route';
import { setSandboxRateHandler, simulateKesCreditHandler } from './sandbox.route';
import { simulateUsdtDepositHandler } from './sandbox-usdt-deposits.route';
import { sandboxApproveWalletHandler, sandboxOutboxHandler } from './sandbox-wallets.route';
import {
  createTransferBatchHandler,
  getTransferBatchHandler,
  listTransferBatchesHandler,
} from './transfer-batches.route';
import {
  confirmHandler,
  createTransferHandler,
  getTransferHandler,
  listTransfersHandler,
  resendConfirmationHandler,
} from './transfers.route';
import { createUsdtSendHandler, getUsdtSendHandler, listUsdtSendsHandler } from './usdt-sends.route';
import { confirmWalletHandler, listWalletsHandler, registerWalletHandler, revokeWalletHandler } from './wallets.route';
import { listEventsHandler, listWebhookDeliveriesHandler, retryWebhookDeliveryHandler } from './webhook-events.route';

type HandlerFactories = { [K in OperationId]: (deps: AppDependencies) => OperationHandler<K> };

const HANDLERS: HandlerFactories = {
  getHealth: healthHandler,
  createQuote: createQuoteHandler,
  createBuyOrder: createBuyOrderHandler,
  createSellOrder: createSellOrderHandler,
  getOrder: getOrderHandler,
  listOrders: listOrdersHandler,
  attachTxHash: attachTxHashHandler,
  listBalances: getBalancesHandler,
  listAccountTransactions: listAccountTransactionsHandler,
  getFundingInstructions: getFundingHandler,
  pushMobileMoneyPrompt: createMobileMoneyPushHandler,
  listMobileMoneyPushes: listMobileMoneyPushesHandler,
  listPayoutDestinations: listPayoutDestinationsHandler,
  registerAdmin: registerAdminHandler,
  listAdmins: listAdminsHandler,
  removeAdmin: removeAdminHandler,
  registerWallet: registerWalletHandler,
  listWallets: listWalletsHandler,
  confirmWallet: confirmWalletHandler,
  revokeWallet: revokeWalletHandler,
  createTransfer: createTransferHandler,
  getTransfer: getTransferHandler,
  listTransfers: listTransfersHandler,
  createTransferBatch: createTransferBatchHandler,
  getTransferBatch: getTransferBatchHandler,
  listTransferBatches: listTransferBatchesHandler,
  createUsdtSend: createUsdtSendHandler,
  getUsdtSend: getUsdtSendHandler,
  listUsdtSends: listUsdtSendsHandler,
  confirm: confirmHandler,
  resendConfirmation: resendConfirmationHandler,
  createCollection: createCollectionHandler,
  listCollections: listCollectionsHandler,
  getCollection: getCollectionHandler,
  listEvents: listEventsHandler,
  listWebhookDeliveries: listWebhookDeliveriesHandler,
  retryWebhookDelivery: retryWebhookDeliveryHandler,
  sandboxSetRate: setSandboxRateHandler,
  sandboxKesCredit: simulateKesCreditHandler,
  sandboxUsdtDeposit: simulateUsdtDepositHandler,
  sandboxApproveWallet: sandboxApproveWalletHandler,
  sandboxOutbox: sandboxOutboxHandler,
  sandboxCollectionDeposit: sandboxCollectionDepositHandler,
  sandboxExpireCollection: sandboxExpireCollectionHandler,
  sandboxApproveMobileMoneyPush: (deps) => answerMobileMoneyPushHandler(deps, 'approve'),
  sandboxDeclineMobileMoneyPush: (deps) => answerMobileMoneyPushHandler(deps, 'decline'),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `/v1/orders/{id}` → `/orders/:id` (mounted at /v1). */
export function routerPath(path: string): string {
  return path.replace(/^\/v1/, '').replace(/\{([A-Za-z]+)\}/g, ':$1');
}

/**
 * The steps every operation shares, in order: its body (parsed and validated,
 * so a malformed body is 400 whatever the id), its query, its path ids (a
 * malformed one names nothing: the operation's 404), then the handler.
 */
function operationRoute(operation: Operation, handler: OperationHandler<OperationId>): RequestHandler {
  const parameterNames = pathParameterNames(operation.path);
  return async (req: Request, res: Response) => {
    const request = operation.request;
    const body = request
      ? validateBody(
          request.schema,
          parseJsonObject(rawBodyOf(res), req.headers['content-type']),
          request.crossFieldCheck,
        )
      : undefined;
    const query = operation.query ? validateQuery(operation.query, rawQueryOf(req.originalUrl)) : undefined;
    const params: Record<string, string> = {};
    for (const name of parameterNames) {
      const value = req.params[name];
      if (typeof value !== 'string' || !UUID.test(value)) throw new AppError(operation.notFound ?? 'NOT_FOUND');
      params[name] = value;
    }
    await handler({ partnerId: partnerAuthOf(res).partnerId, body, query, params } as never, res);
  };
}

/** Literal paths before parameterised ones, so `/transfers/batch` is never read as an id. */
export function registrationOrder(operations: readonly Operation[]): Operation[] {
  return [...operations].sort(
    (left, right) => pathParameterNames(left.path).length - pathParameterNames(right.path).length,
  );
}

/** The operations this mode serves: every one in sandbox mode; the sandbox helpers are left out in production. */
export function servedOperations(mode: AppDependencies['mode']): Operation[] {
  return OPERATION_LIST.filter((operation) => operation.availability !== 'sandbox' || mode === 'sandbox');
}

export function createV1Router(deps: AppDependencies): Router {
  const router = Router({ caseSensitive: true, strict: true });
  for (const operation of registrationOrder(servedOperations(deps.mode))) {
    const handler = HANDLERS[operation.operationId](deps) as OperationHandler<OperationId>;
    router[operation.method](
      routerPath(operation.path),
      requireScope(operation.scope),
      operationRoute(operation, handler),
    );
  }
  router.use(notFound);
  return router;
}
