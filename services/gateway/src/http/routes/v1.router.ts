/**
 * The authenticated partner routes, mounted at /v1 behind authentication and
 * the rate limit, registered from the operation table (@platform/openapi): each
 * operation's path, method and scope, its body and query validated with the
 * table's schemas, every path id checked to be a UUID (else the operation's
 * 404), then its handler. The handler map is typed by operationId, so an
 * operation without a handler, or a handler without an operation, does not
 * compile. Paths are case-sensitive and strict (no trailing slash); an unknown
 * path, or a known path with another method, is 404 NOT_FOUND; HEAD is served
 * by an operation's GET (Node sends no body).
 *
 * One handler matches the operation (path-templates.ts) and runs it, where an
 * Express Router was one layer per operation, each tried in turn with its own
 * regular expression, parameter processing and promise per request: the same
 * order and the same answers, without that walk on every request.
 */
import { Request, RequestHandler, Response } from 'express';
import { AppError } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Operation, OPERATION_LIST, OperationId, pathParameterNames } from '@platform/openapi';
import type { AppDependencies } from '../dependencies';
import { notFound } from '../error-envelope';
import { rawBodyOf } from '../locals';
import { requireScope } from '../middleware/require-scope.middleware';
import { PathTemplate, PathTemplateIndex } from '../path-templates';
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
import type { RouteTable } from './route-table';
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

const V1_PREFIX = /^\/v1(?=\/)/;

/** `/v1/orders/{id}` → `/orders/{id}`: the template below the /v1 mount. */
export function mountedPath(path: string): string {
  return path.replace(V1_PREFIX, '');
}

interface OperationRoute {
  path: PathTemplate;
  /** Upper case, as Node gives `req.method`. */
  method: string;
  /** Throws (a sync refusal) or returns the handler's promise; the pipeline treats both as Express' router did. */
  run: (req: Request, res: Response, rawParameters: readonly string[]) => Promise<void>;
}

/** Whether a route of `routeMethod` serves a request of `requestMethod` (a GET serves HEAD too). */
export function servesMethod(routeMethod: string, requestMethod: string): boolean {
  return routeMethod === requestMethod || (requestMethod === 'HEAD' && routeMethod === 'GET');
}

/**
 * The steps every operation shares, in order: its path ids decoded (a malformed
 * escape is 400), its scope (403), its body (parsed and validated, so a malformed
 * body is 400 whatever the id), its query, its path ids checked (a malformed id
 * names nothing: the operation's 404), then the handler.
 */
function operationRoute(operation: Operation, handler: OperationHandler<OperationId>): OperationRoute {
  const path = new PathTemplate(operation.path);
  const names = path.parameterNames;
  // Runs on every request: plain loops and no async wrapper of its own (a refusal here is a
  // throw, which the pipeline answers as it answers the handler's rejection).
  return {
    path,
    method: operation.method.toUpperCase(),
    run: (req, res, rawParameters) => {
      // Decoded first, as Express' router did while matching: a malformed escape throws URIError (400).
      const decoded: string[] = [];
      for (const value of rawParameters) decoded.push(decodeURIComponent(value));
      const { partnerId } = requireScope(res, operation.scope);
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
      for (let index = 0; index < names.length; index += 1) {
        if (!isUuid(decoded[index])) throw new AppError(operation.notFound ?? 'NOT_FOUND');
        params[names[index]] = decoded[index];
      }
      return handler({ partnerId, body, query, params } as never, res);
    },
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

/**
 * Run for every request under /v1 (app.ts), after authentication and the rate limit: the
 * first operation (in registration order) whose method and whole path fit, else 404. The
 * handler carries the routes it dispatches to, below /v1 (route-table.ts reads them).
 */
export function createV1Router(deps: AppDependencies): RequestHandler & RouteTable {
  const compiled = registrationOrder(servedOperations(deps.mode)).map((operation) =>
    operationRoute(operation, HANDLERS[operation.operationId](deps) as OperationHandler<OperationId>),
  );
  const index = new PathTemplateIndex(compiled);
  const handler: RequestHandler = (req, res, next) => {
    const { segments, items } = index.candidates(req.path);
    for (const route of items) {
      if (!servesMethod(route.method, req.method)) continue;
      const rawParameters = route.path.fit(segments);
      if (rawParameters !== null) return route.run(req, res, rawParameters);
    }
    return notFound(req, res, next);
  };
  return Object.assign(handler, {
    routes: compiled.map((route) => ({ method: route.method, path: mountedPath(route.path.template) })),
  });
}
