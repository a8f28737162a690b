// Proves request paths are labelled by their route template, never by the path
// with its ids: literal paths win over parameterised ones as the router
// registers them, a path that matches no route is `unmatched`, and methods are a
// fixed set.
import { methodLabel, RouteTemplates, UNMATCHED_ROUTE } from './gateway-metrics';

const routes = new RouteTemplates([
  '/healthz',
  '/v1/transfers/batch',
  '/v1/transfers/{id}',
  '/v1/transfers/batch/{id}',
  '/v1/orders/{id}',
  '/v1/wallets/{id}/confirm',
]);

describe('RouteTemplates', () => {
  it('labels a path by its template', () => {
    expect(routes.of('/v1/orders/0b7e6a3c-1f0e-4c1e-9d59-5a0f7a7b2c11')).toBe('/v1/orders/{id}');
    expect(routes.of('/v1/wallets/anything/confirm')).toBe('/v1/wallets/{id}/confirm');
    expect(routes.of('/healthz')).toBe('/healthz');
  });

  it('reads a literal path as itself, not as an id', () => {
    expect(routes.of('/v1/transfers/batch')).toBe('/v1/transfers/batch');
    expect(routes.of('/v1/transfers/batch/5')).toBe('/v1/transfers/batch/{id}');
    expect(routes.of('/v1/transfers/5')).toBe('/v1/transfers/{id}');
  });

  it('calls anything else unmatched, trailing slashes and deeper paths included', () => {
    for (const path of ['/v1/orders/', '/v1/orders/1/2', '/v1/nope', '/HEALTHZ', '/healthz/', '/v1/orders/a.b/../x']) {
      expect({ path, route: routes.of(path) }).toEqual({ path, route: UNMATCHED_ROUTE });
    }
  });

  it('labels methods from a fixed set', () => {
    expect(methodLabel('GET')).toBe('GET');
    expect(methodLabel('PROPFIND')).toBe('other');
    expect(methodLabel(undefined)).toBe('other');
  });
});
