// Proves request paths are labelled by their route template, never by the path
// with its ids: literal paths win over parameterised ones as the router
// registers them, a path that matches no route is `unmatched`, and methods are a
// fixed set; and that answers are counted and timed per route, method and status
// through series made once, also after the registry is reset.
import { Registry } from '@platform/metrics';
import { GatewayMetrics, methodLabel, RouteTemplates, UNMATCHED_ROUTE } from './gateway-metrics';

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

describe('GatewayMetrics.requestAnswered', () => {
  async function values(registry: Registry) {
    const counts = (await registry.getSingleMetric('gateway_http_requests_total')!.get()).values;
    const seconds = (await registry.getSingleMetric('gateway_http_request_duration_seconds')!.get()).values;
    return {
      counts: Object.fromEntries(
        counts.map((v) => [`${v.labels.route} ${v.labels.method} ${v.labels.status}`, v.value]),
      ),
      timed: Object.fromEntries(
        seconds
          .filter((v) => v.metricName === 'gateway_http_request_duration_seconds_count')
          .map((v) => [`${v.labels.route} ${v.labels.method}`, v.value]),
      ),
      sum: seconds.find(
        (v) => v.metricName === 'gateway_http_request_duration_seconds_sum' && v.labels.method === 'GET',
      )?.value,
    };
  }

  it('counts each answer by route, method and status and times it by route and method', async () => {
    const registry = new Registry();
    const metrics = new GatewayMetrics(registry);
    metrics.requestAnswered('/v1/orders/{id}', 'GET', 200, 4);
    metrics.requestAnswered('/v1/orders/{id}', 'GET', 200, 6);
    metrics.requestAnswered('/v1/orders/{id}', 'GET', 404, 1);
    metrics.requestAnswered('/v1/quotes', 'POST', 201, 2);
    expect(await values(registry)).toEqual({
      counts: { '/v1/orders/{id} GET 200': 2, '/v1/orders/{id} GET 404': 1, '/v1/quotes POST 201': 1 },
      timed: { '/v1/orders/{id} GET': 3, '/v1/quotes POST': 1 },
      sum: expect.closeTo(0.011, 9),
    });

    registry.resetMetrics();
    metrics.requestAnswered('/v1/orders/{id}', 'GET', 200, 5);
    expect(await values(registry)).toEqual({
      counts: { '/v1/orders/{id} GET 200': 1 },
      timed: { '/v1/orders/{id} GET': 1 },
      sum: expect.closeTo(0.005, 9),
    });
  });
});
