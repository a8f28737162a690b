/**
 * The routes a router actually serves, read from the router itself (never a
 * hand-kept list), in OpenAPI form: `{method: 'get', path: '/v1/orders/{id}'}`.
 * The OpenAPI conformance test compares it with the document both ways.
 */
import type { Router } from 'express';

export interface ServedRoute {
  method: string;
  path: string;
}

interface RouteLayer {
  route?: { path: unknown; methods?: Record<string, boolean> };
}

/** Express `:id` parameters become OpenAPI `{id}`. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function servedRoutes(router: Router, mountPath: string): ServedRoute[] {
  const routes: ServedRoute[] = [];
  for (const layer of (router as unknown as { stack: RouteLayer[] }).stack) {
    const route = layer.route;
    if (!route || typeof route.path !== 'string') continue;
    for (const [method, enabled] of Object.entries(route.methods ?? {})) {
      // `_all` marks router.all(); HEAD is answered by every GET implicitly.
      if (enabled && method !== '_all') routes.push({ method, path: toOpenApiPath(`${mountPath}${route.path}`) });
    }
  }
  return routes;
}
