// Proves the rendered NetworkPolicies of every overlay enforce who talks to whom, and
// allow no call the services' gRPC allow-lists (services/<service>/src/grpc/access.ts,
// read from the build) do not: everything denied by default; each service's gRPC port
// open to exactly the identities its allow-lists admit (services, and the ops tool
// where it has operator RPCs); each service configured with the address of (a
// <PEER>_GRPC_ADDR), and let out to, exactly the services whose allow-lists admit it,
// and the ops tool likewise; only the gateway's HTTP port open to the ingress
// controller, and every service's metrics port to the monitoring namespace only;
// webhook-delivery allowed out to the internet on 443 but never to private
// or cluster ranges; PostgreSQL, Redis and RabbitMQ reachable only at the addresses the
// overlay names (single-address ipBlocks, never the base's placeholders), every rule
// that reaches their ports naming addresses only, and only by the workloads whose
// Secret holds that store's URL.
import { ConfigMapObject, containerEnv, podSpecOf, secretRefs, Workload } from './pods';
import {
  allowListedCallers,
  K8sObject,
  ofKind,
  OVERLAYS,
  Overlay,
  renderKustomization,
  serviceNames,
} from './repository';

interface PeerSelector {
  podSelector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  from?: PeerSelector[];
  to?: PeerSelector[];
  ports?: { protocol?: string; port?: number | string }[];
}
interface Expression {
  key: string;
  operator: string;
  values?: string[];
}
interface Policy extends K8sObject {
  spec: {
    podSelector: { matchLabels?: Record<string, string>; matchExpressions?: Expression[] };
    policyTypes?: string[];
    ingress?: Rule[];
    egress?: Rule[];
  };
}

const INGRESS_CONTROLLER_NAMESPACE = 'ingress-nginx';
const MONITORING_NAMESPACE = 'monitoring';
const OPS_LABEL = 'ops';
/** Ranges webhook-delivery must never reach: RFC 1918, CGNAT, link-local (cloud metadata), loopback. */
const PRIVATE_IPV4_RANGES = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '127.0.0.0/8',
];
const PRIVATE_IPV6_RANGES = ['fc00::/7', 'fe80::/10', '::1/128'];

/** The data stores, the Secret key holding each one's URL, and its ports. */
const DATA_STORES = [
  { name: 'PostgreSQL', secretKey: 'DATABASE_URL', ports: [5432] },
  { name: 'Redis', secretKey: 'REDIS_URL', ports: [6379] },
  { name: 'RabbitMQ', secretKey: 'AMQP_URL', ports: [5672, 5671] },
];
/** One address: an IPv4 /32 or an IPv6 /128. */
const SINGLE_ADDRESS = /^(\d{1,3}(\.\d{1,3}){3}\/32|[0-9a-fA-F:]+\/128)$/;
/** deploy/base/data-stores.yaml's placeholder addresses (192.0.2.0/24, reserved for documentation): an overlay replaces each. */
const PLACEHOLDER_ADDRESS = /^192\.0\.2\./;

const services = serviceNames();
const rendered = new Map<Overlay, K8sObject[]>();

beforeAll(() => {
  for (const overlay of OVERLAYS) rendered.set(overlay, renderKustomization(`deploy/overlays/${overlay}`));
});

function objectsOf(overlay: Overlay): K8sObject[] {
  const objects = rendered.get(overlay);
  if (!objects) throw new Error(`overlay ${overlay} was not rendered`);
  return objects;
}

function serverLabels(objects: K8sObject[], service: string): Record<string, string> {
  const deployment = ofKind<Workload>(objects, 'Deployment').find((candidate) => candidate.metadata.name === service);
  if (!deployment) throw new Error(`no Deployment ${service}`);
  return deployment.spec.template.metadata?.labels ?? {};
}

function serverEnv(objects: K8sObject[], service: string): Record<string, string> {
  const deployment = ofKind<Workload>(objects, 'Deployment').find((candidate) => candidate.metadata.name === service);
  if (!deployment) throw new Error(`no Deployment ${service}`);
  return containerEnv(podSpecOf(deployment).containers[0], ofKind<ConfigMapObject>(objects, 'ConfigMap'));
}

function selects(policy: Policy, labels: Record<string, string>): boolean {
  const expressions = policy.spec.podSelector.matchExpressions ?? [];
  const unsupported = expressions.find((expression) => expression.operator !== 'In');
  if (unsupported)
    throw new Error(`${policy.metadata.name}: matchExpressions operator ${unsupported.operator} is not checked here`);
  return (
    Object.entries(policy.spec.podSelector.matchLabels ?? {}).every(([key, value]) => labels[key] === value) &&
    expressions.every((expression) => (expression.values ?? []).includes(labels[expression.key]))
  );
}

function policiesFor(objects: K8sObject[], labels: Record<string, string>): Policy[] {
  return ofKind<Policy>(objects, 'NetworkPolicy').filter((policy) => selects(policy, labels));
}

function coversPort(rule: Rule, port: number): boolean {
  return (
    !rule.ports ||
    rule.ports.length === 0 ||
    rule.ports.some((entry) => entry.port === undefined || entry.port === port)
  );
}

/** Who may open `port` on pods with `labels`: "pod:<name>", "namespace:<name>", "ip:<cidr>" or "anyone". */
function allowedSources(objects: K8sObject[], labels: Record<string, string>, port: number): string[] {
  const rules = policiesFor(objects, labels)
    .flatMap((policy) => policy.spec.ingress ?? [])
    .filter((rule) => coversPort(rule, port));
  return [...new Set(rules.flatMap((rule) => (rule.from?.length ? rule.from.map(describePeer) : ['anyone'])))].sort();
}

function describePeer(peer: PeerSelector): string {
  if (peer.ipBlock) return `ip:${peer.ipBlock.cidr}`;
  if (peer.namespaceSelector)
    return `namespace:${peer.namespaceSelector.matchLabels?.['kubernetes.io/metadata.name'] ?? 'any'}`;
  return `pod:${peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] ?? 'any'}`;
}

function grpcPort(objects: K8sObject[], service: string): number {
  return Number(serverEnv(objects, service).GRPC_PORT);
}

/** Services whose environment names `service` as a gRPC peer. */
function configuredCallers(objects: K8sObject[], service: string): string[] {
  const addressName = `${service.toUpperCase().replace(/-/g, '_')}_GRPC_ADDR`;
  return services.filter((caller) => caller !== service && serverEnv(objects, caller)[addressName] !== undefined);
}

function egressReaches(
  objects: K8sObject[],
  from: Record<string, string>,
  to: Record<string, string>,
  port: number,
): boolean {
  const rules = policiesFor(objects, from)
    .flatMap((policy) => policy.spec.egress ?? [])
    .filter((rule) => coversPort(rule, port));
  return rules.some(
    (rule) =>
      !rule.to?.length ||
      rule.to.some(
        (peer) =>
          !peer.namespaceSelector &&
          !peer.ipBlock &&
          Object.entries(peer.podSelector?.matchLabels ?? {}).every(([key, value]) => to[key] === value),
      ),
  );
}

describe.each([...OVERLAYS])('network policies of %s', (overlay) => {
  it('deny everything by default and allow DNS', () => {
    const policies = ofKind<Policy>(objectsOf(overlay), 'NetworkPolicy');
    const denyAll = policies.find(
      (policy) =>
        Object.keys(policy.spec.podSelector.matchLabels ?? {}).length === 0 &&
        !policy.spec.ingress &&
        !policy.spec.egress,
    );
    expect(denyAll?.spec.policyTypes?.sort()).toEqual(['Egress', 'Ingress']);
    const dns = policies.flatMap((policy) =>
      Object.keys(policy.spec.podSelector.matchLabels ?? {}).length === 0 ? (policy.spec.egress ?? []) : [],
    );
    expect(dns.some((rule) => rule.ports?.some((port) => port.port === 53 && port.protocol === 'UDP'))).toBe(true);
  });

  it.each(services)('open the gRPC port of %s to exactly the identities its allow-lists admit', (service) => {
    const objects = objectsOf(overlay);
    const expected = allowListedCallers(service).map((name) => `pod:${name}`);
    expect({
      service,
      sources: allowedSources(objects, serverLabels(objects, service), grpcPort(objects, service)),
    }).toEqual({ service, sources: expected });
  });

  it.each(services)('configure %s with the address of exactly the services whose allow-lists admit it', (caller) => {
    const objects = objectsOf(overlay);
    const configured = services.filter((peer) => configuredCallers(objects, peer).includes(caller));
    const admitting = services.filter((peer) => peer !== caller && allowListedCallers(peer).includes(caller));
    expect({ caller, peers: configured }).toEqual({ caller, peers: admitting });
  });

  it.each(services)('let %s out to exactly the gRPC ports of the services whose allow-lists admit it', (caller) => {
    const objects = objectsOf(overlay);
    for (const peer of services.filter((name) => name !== caller)) {
      const reachable = egressReaches(
        objects,
        serverLabels(objects, caller),
        serverLabels(objects, peer),
        grpcPort(objects, peer),
      );
      expect({ caller, peer, reachable }).toEqual({
        caller,
        peer,
        reachable: allowListedCallers(peer).includes(caller),
      });
    }
  });

  it('open the gateway HTTP port to the ingress controller only, and no other port to another namespace', () => {
    const objects = objectsOf(overlay);
    const httpPort = Number(serverEnv(objects, 'gateway').HTTP_PORT);
    expect(allowedSources(objects, serverLabels(objects, 'gateway'), httpPort)).toEqual([
      `namespace:${INGRESS_CONTROLLER_NAMESPACE}`,
    ]);
    for (const service of services) {
      const outside = policiesFor(objects, serverLabels(objects, service))
        .flatMap((policy) => policy.spec.ingress ?? [])
        .filter((rule) => (rule.from ?? []).some((peer) => !describePeer(peer).startsWith('pod:')))
        .flatMap((rule) =>
          (rule.ports ?? [{}]).map(
            (entry) => `${(rule.from ?? []).map(describePeer).join(',')} → ${entry.port ?? 'every port'}`,
          ),
        );
      const expected = [
        ...(service === 'gateway' ? [`namespace:${INGRESS_CONTROLLER_NAMESPACE} → ${httpPort}`] : []),
        `namespace:${MONITORING_NAMESPACE} → ${Number(serverEnv(objects, service).METRICS_PORT)}`,
      ];
      expect({ service, outside: outside.sort() }).toEqual({ service, outside: expected.sort() });
    }
  });

  it.each(services)('open the metrics port of %s to the monitoring namespace only', (service) => {
    const objects = objectsOf(overlay);
    const metricsPort = Number(serverEnv(objects, service).METRICS_PORT);
    expect(Number.isInteger(metricsPort)).toBe(true);
    expect({ service, sources: allowedSources(objects, serverLabels(objects, service), metricsPort) }).toEqual({
      service,
      sources: [`namespace:${MONITORING_NAMESPACE}`],
    });
  });

  it('let webhook-delivery reach HTTPS on the internet but not private or cluster ranges', () => {
    const objects = objectsOf(overlay);
    const rules = policiesFor(objects, serverLabels(objects, 'webhook-delivery'))
      .flatMap((policy) => policy.spec.egress ?? [])
      .filter((rule) => coversPort(rule, 443));
    const blocks = rules.flatMap((rule) => rule.to ?? [{}]).map((peer) => peer.ipBlock);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      expect(block).toBeDefined();
      const except = block?.except ?? [];
      const required = block?.cidr.includes(':') ? PRIVATE_IPV6_RANGES : PRIVATE_IPV4_RANGES;
      expect({ cidr: block?.cidr, missing: required.filter((range) => !except.includes(range)) }).toEqual({
        cidr: block?.cidr,
        missing: [],
      });
    }
  });

  it('let each workload reach its data stores at their configured addresses only, and no other workload at all', () => {
    const objects = objectsOf(overlay);
    const workloads = [...ofKind<Workload>(objects, 'Deployment'), ...ofKind<Workload>(objects, 'Job')];
    expect(workloads.length).toBeGreaterThan(services.length);
    for (const workload of workloads) {
      const labels = workload.spec.template.metadata?.labels ?? {};
      const reads = new Set(
        podSpecOf(workload).containers.flatMap((container) => secretRefs(container).map((ref) => ref.key)),
      );
      for (const store of DATA_STORES) {
        for (const port of store.ports) {
          const rules = policiesFor(objects, labels)
            .flatMap((policy) => policy.spec.egress ?? [])
            .filter((rule) => coversPort(rule, port));
          const where = { workload: workload.metadata.name, store: store.name, port };
          const destinations = rules.flatMap((rule) =>
            rule.to?.length ? rule.to.map((peer) => peer.ipBlock?.cidr ?? describePeer(peer)) : ['anywhere'],
          );
          if (reads.has(store.secretKey)) {
            expect({ ...where, reachable: destinations.length > 0 }).toEqual({ ...where, reachable: true });
            expect({
              ...where,
              notAnAddress: destinations.filter((destination) => !SINGLE_ADDRESS.test(destination)),
            }).toEqual({ ...where, notAnAddress: [] });
          } else {
            expect({ ...where, destinations }).toEqual({ ...where, destinations: [] });
          }
        }
      }
    }
  });

  it('let the ops tool out to exactly the gRPC ports of the services with operator RPCs', () => {
    const objects = objectsOf(overlay);
    for (const service of services) {
      const reachable = egressReaches(
        objects,
        { 'app.kubernetes.io/name': OPS_LABEL },
        serverLabels(objects, service),
        grpcPort(objects, service),
      );
      expect({ service, reachable }).toEqual({ service, reachable: allowListedCallers(service).includes(OPS_LABEL) });
    }
  });

  it('name the data stores by address in every rule that reaches their ports, never by the base placeholders', () => {
    const objects = objectsOf(overlay);
    const dataPorts = DATA_STORES.flatMap((store) => store.ports);
    const rules = ofKind<Policy>(objects, 'NetworkPolicy').flatMap((policy) =>
      (policy.spec.egress ?? []).map((rule) => ({ policy: policy.metadata.name, rule })),
    );
    const reachingStores = rules.filter(({ rule }) => dataPorts.some((port) => coversPort(rule, port)));
    expect(reachingStores.length).toBeGreaterThanOrEqual(DATA_STORES.length);
    for (const { policy, rule } of reachingStores) {
      const destinations = rule.to?.length
        ? rule.to.map((peer) => peer.ipBlock?.cidr ?? describePeer(peer))
        : ['anywhere'];
      expect({ policy, notAnAddress: destinations.filter((destination) => !SINGLE_ADDRESS.test(destination)) }).toEqual(
        { policy, notAnAddress: [] },
      );
      expect({
        policy,
        placeholders: destinations.filter((destination) => PLACEHOLDER_ADDRESS.test(destination)),
      }).toEqual({ policy, placeholders: [] });
      expect({ policy, except: rule.to?.flatMap((peer) => peer.ipBlock?.except ?? []) }).toEqual({
        policy,
        except: [],
      });
    }
  });
});
