// Proves every overlay monitors every service: each serves metrics on its
// METRICS_PORT (a container port named `metrics`, the same port on its
// Service, bound to HTTP_HOST 0.0.0.0), and has a ServiceMonitor whose selector
// picks exactly its Service (whose own selector picks its pods) and scrapes that
// named port. The alerts (PrometheusRule) cover what operators page on, and
// every alert expression and every dashboard query reads only metric families
// the code defines (collected from the sources and from prom-client's process
// metrics; metric-families.ts). Renders for real; no cluster needed.
import { ConfigMapObject, containerEnv, podSpecOf, Workload } from './pods';
import { FamilyType, familiesInCode, metricsInExpression, processFamilies, seriesNames } from './metric-families';
import { K8sObject, ofKind, OVERLAYS, Overlay, renderKustomization, serviceNames } from './repository';

interface ServiceObject extends K8sObject {
  spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort?: number | string }[] };
}
interface ServiceMonitor extends K8sObject {
  spec: {
    selector: { matchLabels: Record<string, string> };
    endpoints: { port: string; path?: string }[];
    namespaceSelector?: unknown;
  };
}
interface Rule {
  alert?: string;
  expr: string;
  labels?: Record<string, string>;
}
interface PrometheusRule extends K8sObject {
  spec: { groups: { name: string; rules: Rule[] }[] };
}
interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** What operators page on: each must be alerted on, reading the family named. */
const REQUIRED_ALERTS: Record<string, string> = {
  DeadLetters: 'webhook_dead_letters_total',
  WebhookEndpointFailing: 'webhook_endpoint_failing_alerts_total',
  OutboxLagging: 'outbox_oldest_unpublished_age_seconds',
  CircuitBreakerOpen: 'circuit_breaker_state',
  PartnerApiErrors: 'gateway_http_requests_total',
  WorkerLagging: 'worker_lag_seconds',
  LedgerCheckFailing: 'ledger_check_runs_total',
};
const DASHBOARD_LABEL = 'grafana_dashboard';

const services = serviceNames();
const rendered = new Map<Overlay, K8sObject[]>();
let families: Map<string, FamilyType>;
let known: Set<string>;

beforeAll(async () => {
  for (const overlay of OVERLAYS) rendered.set(overlay, renderKustomization(`deploy/overlays/${overlay}`));
  families = new Map([...familiesInCode(), ...(await processFamilies())]);
  known = seriesNames(families);
});

function objectsOf(overlay: Overlay): K8sObject[] {
  const objects = rendered.get(overlay);
  if (!objects) throw new Error(`overlay ${overlay} was not rendered`);
  return objects;
}

function named<T extends K8sObject>(objects: K8sObject[], kind: string, name: string): T {
  const found = ofKind<T>(objects, kind).find((object) => object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

function matches(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

/** Metric names an expression reads that the code does not define. */
function undefinedIn(expr: string): string[] {
  return metricsInExpression(expr).filter((name) => !known.has(name));
}

function panelsOf(panels: Panel[]): Panel[] {
  return panels.flatMap((panel) => [panel, ...panelsOf(panel.panels ?? [])]);
}

describe('metric families collected from the code', () => {
  it('finds the shared, service and process families, with their types', () => {
    expect(families.get('grpc_server_handled_total')).toBe('counter');
    expect(families.get('grpc_server_handling_seconds')).toBe('histogram');
    expect(families.get('worker_lag_seconds')).toBe('gauge');
    expect(families.get('outbox_unpublished_events')).toBe('gauge');
    expect(families.get('gateway_http_request_duration_seconds')).toBe('histogram');
    expect(families.get('webhook_attempts_total')).toBe('counter');
    expect(families.get('process_cpu_seconds_total')).toBe('counter');
    expect(known.has('grpc_server_handling_seconds_bucket')).toBe(true);
    expect(known.has('worker_lag_seconds_bucket')).toBe(false);
  });

  it('reads the metric names of an expression, never its labels, functions or keywords', () => {
    const expr =
      'histogram_quantile(0.95, sum by (le, route) (rate(gateway_http_request_duration_seconds_bucket{status=~"5..", route!="x"}[5m])))' +
      ' / on (job) group_left max without (pod) (up{job="gateway"}) or vector(0)';
    expect(metricsInExpression(expr).sort()).toEqual(['gateway_http_request_duration_seconds_bucket', 'up']);
  });
});

describe.each([...OVERLAYS])('monitoring in overlay %s', (overlay) => {
  it.each(services)(
    '%s serves metrics on METRICS_PORT and a ServiceMonitor scrapes it through its Service',
    (service) => {
      const objects = objectsOf(overlay);
      const deployment = named<Workload>(objects, 'Deployment', service);
      const container = podSpecOf(deployment).containers.find((candidate) => candidate.name === service);
      const env = containerEnv(container!, ofKind<ConfigMapObject>(objects, 'ConfigMap'));
      const port = Number(env.METRICS_PORT);
      expect({ service, port: Number.isInteger(port), host: env.HTTP_HOST }).toEqual({
        service,
        port: true,
        host: '0.0.0.0',
      });
      expect(container?.ports).toContainEqual(expect.objectContaining({ name: 'metrics', containerPort: port }));
      const serviceObject = named<ServiceObject>(objects, 'Service', service);
      expect(serviceObject.spec.ports).toContainEqual(
        expect.objectContaining({ name: 'metrics', port, targetPort: 'metrics' }),
      );
      const monitors = ofKind<ServiceMonitor>(objects, 'ServiceMonitor').filter((monitor) =>
        matches(monitor.spec.selector.matchLabels, serviceObject.metadata.labels),
      );
      expect(monitors.map((monitor) => monitor.metadata.name)).toEqual([service]);
      const [monitor] = monitors;
      expect(monitor.metadata.labels?.['app.kubernetes.io/name']).toBe(service);
      expect(monitor.spec.namespaceSelector).toBeUndefined();
      expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
      // The Service's selector is the pods' labels, so the endpoints Prometheus finds are this service's pods.
      expect(matches(serviceObject.spec.selector, deployment.spec.template.metadata?.labels)).toBe(true);
      const scraped = ofKind<ServiceObject>(objects, 'Service').filter((candidate) =>
        matches(monitor.spec.selector.matchLabels, candidate.metadata.labels),
      );
      expect(scraped.map((candidate) => candidate.metadata.name)).toEqual([service]);
    },
  );

  it('alerts on what operators page on, each rule reading only families the code defines', () => {
    const rules = ofKind<PrometheusRule>(objectsOf(overlay), 'PrometheusRule').flatMap((rule) =>
      rule.spec.groups.flatMap((group) => group.rules),
    );
    const alerts = new Map(rules.filter((rule) => rule.alert).map((rule) => [rule.alert as string, rule]));
    for (const [alert, family] of Object.entries(REQUIRED_ALERTS)) {
      expect({ alert, reads: metricsInExpression(alerts.get(alert)?.expr ?? '').includes(family) }).toEqual({
        alert,
        reads: true,
      });
    }
    for (const rule of rules) {
      const where = rule.alert ?? rule.expr;
      expect({ where, reads: metricsInExpression(rule.expr).length > 0, undefined: undefinedIn(rule.expr) }).toEqual({
        where,
        reads: true,
        undefined: [],
      });
    }
  });

  it('ships a Grafana dashboard whose every query reads only families the code defines', () => {
    const dashboards = ofKind<ConfigMapObject>(objectsOf(overlay), 'ConfigMap').filter(
      (configMap) => configMap.metadata.labels?.[DASHBOARD_LABEL] === '1',
    );
    expect(dashboards.length).toBeGreaterThan(0);
    for (const configMap of dashboards) {
      for (const [file, text] of Object.entries(configMap.data ?? {})) {
        const dashboard = JSON.parse(text) as {
          uid?: string;
          panels?: Panel[];
          templating?: { list?: { definition?: string }[] };
        };
        expect({ file, uid: typeof dashboard.uid }).toEqual({ file, uid: 'string' });
        const panels = panelsOf(dashboard.panels ?? []).filter((panel) => panel.targets);
        expect(panels.length).toBeGreaterThan(10);
        for (const panel of panels) {
          for (const target of panel.targets ?? []) {
            const expr = target.expr ?? '';
            expect({
              panel: panel.title,
              reads: metricsInExpression(expr).length > 0,
              undefined: undefinedIn(expr),
            }).toEqual({ panel: panel.title, reads: true, undefined: [] });
          }
        }
        // label_values(<series>, <label>): the series must exist too.
        for (const variable of dashboard.templating?.list ?? []) {
          const series = /^label_values\((.*),\s*\w+\)$/.exec(variable.definition ?? '')?.[1];
          if (series)
            expect({ variable: variable.definition, undefined: undefinedIn(series) }).toEqual({
              variable: variable.definition,
              undefined: [],
            });
        }
      }
    }
  });
});
