/**
 * The routes the /v1 handler actually serves, read from the handler itself
 * (the same compiled routes it dispatches on, never a hand-kept list), in
 * OpenAPI form: `{method: 'get', path: '/v1/orders/{id}'}`. The OpenAPI
 * conformance test compares it with the document both ways.
 */
export interface ServedRoute {
  method: string;
  path: string;
}

/** What v1.router.ts attaches to its handler: each route it dispatches to, its path below the mount. */
export interface RouteTable {
  readonly routes: readonly ServedRoute[];
}

export function servedRoutes(router: RouteTable, mountPath: string): ServedRoute[] {
  // HEAD is answered by every GET implicitly, as it is not an operation of its own.
  return router.routes.map((route) => ({ method: route.method.toLowerCase(), path: `${mountPath}${route.path}` }));
}
