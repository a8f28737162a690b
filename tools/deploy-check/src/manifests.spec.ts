// Proves that every overlay under deploy/overlays renders with `kubectl kustomize`,
// that every rendered object matches its Kubernetes (or KEDA) schema, and that each
// service under services/ gets what it needs to run safely: Deployment, Service,
// ServiceAccount, ConfigMap, PodDisruptionBudget, migration Job, probes, a tagged
// image, a locked-down securityContext, requests and limits, and an environment
// its own configuration schema accepts; its identity (a short-lived cert-manager
// Certificate naming spiffe://platform/<service>, a new key at every renewal and a
// bounded history, issued by the environment's own CA and mounted where its TLS
// variables point), listeners on the pod's interfaces, and a production-mode base.
// Each environment's CA renders alone (deploy/overlays/<overlay>/ca): a ClusterIssuer
// whose key Secret lives in cert-manager's namespace, never the application's, kept
// at renewal (a new CA key would split the platform) and distinct per environment.
// Renders for real; no cluster needed.
import { migrationEnvSchema } from '@platform/config';
import { ConfigMapObject, Container, containerEnv, cpuMillicores, podSpecOf, secretRefs, Workload } from './pods';
import {
  configProblems,
  configSchemaOf,
  K8sObject,
  objectName,
  ofKind,
  OVERLAYS,
  Overlay,
  readYamlFile,
  REPO_ROOT,
  renderKustomization,
  SCALERS,
  serviceNames,
} from './repository';
import { schemaProblems } from './schemas';
import path from 'node:path';

const IMAGE_REGISTRY = 'registry.example.com/platform';
const NAMESPACES: Record<Overlay, string> = { sandbox: 'payments-sandbox', production: 'payments-production' };
const MODES: Record<Overlay, string> = { sandbox: 'sandbox', production: 'production' };
/** The user of the images (`node`, uid 1000; Dockerfile). */
const IMAGE_UID = 1000;
const PRESTOP_SLEEP_SECONDS_MAX = 10;
/** Margin runService keeps after SHUTDOWN_GRACE_MS before it exits anyway (libs/grpc). */
const RUN_SERVICE_EXIT_MARGIN_MS = 2_000;
const IDENTITY_URI_PREFIX = 'spiffe://platform/';
/** Identity certificates live days, not years: at most a week, renewed at least a day ahead. */
const CERTIFICATE_HOURS_MAX = 7 * 24;
const RENEW_BEFORE_HOURS_MIN = 24;
/** CertificateRequests kept per Certificate: some history, never unbounded. */
const REVISION_HISTORY_MAX = 10;
/** Where cert-manager keeps a ClusterIssuer's Secret (its cluster resource namespace, by default). */
const CA_NAMESPACE = 'cert-manager';
const CA_ISSUERS: Record<Overlay, string> = { sandbox: 'platform-ca-sandbox', production: 'platform-ca-production' };

/**
 * Services whose production configuration cannot be valid yet because the real
 * adapter does not exist; the variable their schema refuses. The check below fails
 * as soon as one of these starts passing, so the entry is removed with the fix.
 */
const PRODUCTION_GAPS: Record<string, string[]> = {
  // Only the sandbox chain custodian exists; ledger refuses it in production mode.
  ledger: ['CHAIN_CUSTODIAN'],
};

const services = serviceNames();
const rendered = new Map<Overlay, K8sObject[]>();
const renderedCas = new Map<Overlay, K8sObject[]>();

beforeAll(() => {
  for (const overlay of OVERLAYS) {
    rendered.set(overlay, renderKustomization(`deploy/overlays/${overlay}`));
    renderedCas.set(overlay, renderKustomization(`deploy/overlays/${overlay}/ca`));
  }
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

function serverContainer(objects: K8sObject[], service: string): Container {
  const container = podSpecOf(named<Workload>(objects, 'Deployment', service)).containers.find(
    (candidate) => candidate.name === service,
  );
  if (!container) throw new Error(`Deployment ${service} has no container named ${service}`);
  return container;
}

/** What the headless Service check reads of a Service. */
interface HeadlessServiceSpec {
  clusterIP?: string;
  publishNotReadyAddresses?: boolean;
  selector: Record<string, string>;
  ports: { name: string; port: number; targetPort?: string | number }[];
}

function grpcPortOf(objects: K8sObject[], service: string): number {
  const env = containerEnv(serverContainer(objects, service), ofKind<ConfigMapObject>(objects, 'ConfigMap'));
  const port = Number(env.GRPC_PORT);
  if (!Number.isInteger(port)) throw new Error(`${service} has no GRPC_PORT`);
  return port;
}

function expectLockedDown(workload: Workload): void {
  const pod = podSpecOf(workload);
  const where = `${workload.kind} ${objectName(workload)}`;
  expect({ where, automount: pod.automountServiceAccountToken }).toEqual({ where, automount: false });
  expect({ where, pod: pod.securityContext }).toMatchObject({
    where,
    pod: { runAsNonRoot: true, runAsUser: IMAGE_UID, seccompProfile: { type: 'RuntimeDefault' } },
  });
  for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
    expect({ where, container: container.name, securityContext: container.securityContext }).toMatchObject({
      where,
      container: container.name,
      securityContext: {
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      },
    });
    expect({ where, container: container.name, added: container.securityContext?.capabilities?.add ?? [] }).toEqual({
      where,
      container: container.name,
      added: [],
    });
    const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
    expect({
      where,
      tmpIsEmptyDir: Boolean(tmp && pod.volumes?.find((volume) => volume.name === tmp.name)?.emptyDir),
    }).toEqual({ where, tmpIsEmptyDir: true });
    expectResources(where, container);
  }
}

function expectResources(where: string, container: Container): void {
  for (const resource of ['cpu', 'memory']) {
    expect({
      where,
      resource,
      request: container.resources?.requests?.[resource] !== undefined,
      limit: container.resources?.limits?.[resource] !== undefined,
    }).toEqual({ where, resource, request: true, limit: true });
  }
  const cpuRequest = container.resources?.requests?.cpu;
  const cpuLimit = container.resources?.limits?.cpu;
  if (cpuRequest && cpuLimit) expect(cpuMillicores(cpuRequest)).toBeLessThanOrEqual(cpuMillicores(cpuLimit));
}

function expectImage(where: string, container: Container, service: string): void {
  const match = /^(.+):([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})$/.exec(container.image ?? '');
  expect({ where, repository: match?.[1], tagged: Boolean(match) && match?.[2] !== 'latest' }).toEqual({
    where,
    repository: `${IMAGE_REGISTRY}/${service}`,
    tagged: true,
  });
}

describe.each([...OVERLAYS])('overlay %s', (overlay) => {
  it('renders objects that all match their schemas', () => {
    const problems = objectsOf(overlay).flatMap((object) =>
      schemaProblems(object).map((problem) => `${object.kind} ${objectName(object)}: ${problem}`),
    );
    expect(problems).toEqual([]);
    expect(objectsOf(overlay).length).toBeGreaterThan(services.length * 7);
  });

  it('puts everything, labelled, in its namespace and commits no Secret', () => {
    const objects = objectsOf(overlay);
    const stray = objects.filter(
      (object) => object.kind !== 'Namespace' && object.metadata.namespace !== NAMESPACES[overlay],
    );
    expect(stray.map((object) => `${object.kind} ${objectName(object)}`)).toEqual([]);
    expect(ofKind(objects, 'Namespace').map(objectName)).toEqual([NAMESPACES[overlay]]);
    expect(ofKind(objects, 'Secret').map(objectName)).toEqual([]);
    const unlabelled = objects.filter(
      (object) => object.metadata.labels?.['app.kubernetes.io/part-of'] !== 'partner-payments',
    );
    expect(unlabelled.map((object) => `${object.kind} ${objectName(object)}`)).toEqual([]);
  });

  it('runs in its platform mode', () => {
    const objects = objectsOf(overlay);
    for (const service of services) {
      const env = containerEnv(serverContainer(objects, service), ofKind<ConfigMapObject>(objects, 'ConfigMap'));
      expect({ service, mode: env.PLATFORM_MODE }).toEqual({ service, mode: MODES[overlay] });
      if (overlay === 'sandbox') expect({ service, scale: env.SANDBOX_TIME_SCALE }).toEqual({ service, scale: '1' });
    }
  });

  describe.each(services)('service %s', (service) => {
    it('has its Deployment, Service, ServiceAccount, ConfigMap and PodDisruptionBudget', () => {
      const objects = objectsOf(overlay);
      const deployment = named<Workload>(objects, 'Deployment', service);
      const pod = podSpecOf(deployment);
      const selector = deployment.spec.selector?.matchLabels ?? {};
      expect(selector['app.kubernetes.io/name']).toBe(service);
      expect(deployment.spec.template.metadata?.labels).toMatchObject(selector);
      expect(pod.serviceAccountName).toBe(service);
      expect(named(objects, 'ServiceAccount', service)).toMatchObject({ automountServiceAccountToken: false });
      const serviceObject = named<
        K8sObject & { spec: { selector: Record<string, string>; ports: { name: string; port: number }[] } }
      >(objects, 'Service', service);
      expect(serviceObject.spec.selector).toEqual(selector);
      expect(serviceObject.spec.ports).toContainEqual(
        expect.objectContaining({ name: 'grpc', port: grpcPortOf(objects, service) }),
      );
      const budget = named<K8sObject & { spec: { selector: { matchLabels: Record<string, string> } } }>(
        objects,
        'PodDisruptionBudget',
        service,
      );
      expect(budget.spec.selector.matchLabels).toEqual(selector);
      const configMapNames = (serverContainer(objects, service).envFrom ?? []).map(
        (source) => source.configMapRef?.name ?? '',
      );
      expect(configMapNames.some((name) => name.startsWith(`${service}-config`))).toBe(true);
    });

    it('serves its tagged image as uid 1000, locked down, with requests and limits', () => {
      const objects = objectsOf(overlay);
      const deployment = named<Workload>(objects, 'Deployment', service);
      expectImage(`Deployment ${service}`, serverContainer(objects, service), service);
      expectLockedDown(deployment);
    });

    it('has gRPC health probes on its plaintext health port (the gateway: HTTP /healthz readiness) and drains within its grace period', () => {
      const objects = objectsOf(overlay);
      const container = serverContainer(objects, service);
      const grpcPort = grpcPortOf(objects, service);
      const healthPort = Number(containerEnv(container, ofKind<ConfigMapObject>(objects, 'ConfigMap')).HEALTH_PORT);
      expect(Number.isInteger(healthPort) && healthPort !== grpcPort).toBe(true);
      expect(container.ports).toContainEqual(expect.objectContaining({ name: 'grpc', containerPort: grpcPort }));
      expect(container.ports).toContainEqual(expect.objectContaining({ name: 'health', containerPort: healthPort }));
      expect(container.livenessProbe?.grpc?.port).toBe(healthPort);
      expect(container.startupProbe?.grpc?.port).toBe(healthPort);
      if (service === 'gateway') {
        expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
        expect(container.ports).toContainEqual(expect.objectContaining({ name: 'http' }));
      } else {
        expect(container.readinessProbe?.grpc?.port).toBe(healthPort);
      }
      expectGracefulRollout(objects, service);
    });

    it('has its own short-lived identity certificate, mounted read-only where its TLS variables point', () => {
      const objects = objectsOf(overlay);
      const certificate = named<CertificateObject>(objects, 'Certificate', `${service}-identity`);
      expectIdentityCertificate(certificate, service, CA_ISSUERS[overlay]);
      expect(certificate.metadata.labels).toMatchObject({
        'app.kubernetes.io/name': service,
        'app.kubernetes.io/component': 'identity',
      });
      const container = serverContainer(objects, service);
      const env = containerEnv(container, ofKind<ConfigMapObject>(objects, 'ConfigMap'));
      expectMountedIdentity(
        podSpecOf(named<Workload>(objects, 'Deployment', service)),
        container,
        env,
        certificate.spec.secretName,
      );
    });

    it("listens on the pod's interfaces (the services default to 127.0.0.1 elsewhere)", () => {
      const objects = objectsOf(overlay);
      const env = containerEnv(serverContainer(objects, service), ofKind<ConfigMapObject>(objects, 'ConfigMap'));
      expect({ service, grpcHost: env.GRPC_HOST }).toEqual({ service, grpcHost: '0.0.0.0' });
      if (env.HTTP_PORT || env.METRICS_PORT)
        expect({ service, httpHost: env.HTTP_HOST }).toEqual({ service, httpHost: '0.0.0.0' });
    });

    it('gets an environment its configuration schema accepts', () => {
      const objects = objectsOf(overlay);
      const env = containerEnv(serverContainer(objects, service), ofKind<ConfigMapObject>(objects, 'ConfigMap'));
      const refused = configProblems(configSchemaOf(service), env).map((problem) => problem.split(':')[0]);
      const expected = overlay === 'production' ? (PRODUCTION_GAPS[service] ?? []) : [];
      expect({ service, refused }).toEqual({ service, refused: expected });
    });

    it("points every gRPC address it is given at that peer's headless Service and port, so calls spread over its pods", () => {
      const objects = objectsOf(overlay);
      const env = containerEnv(serverContainer(objects, service), ofKind<ConfigMapObject>(objects, 'ConfigMap'));
      for (const [key, address] of Object.entries(env).filter(([name]) => name.endsWith('_GRPC_ADDR'))) {
        const peer = key
          .replace(/_GRPC_ADDR$/, '')
          .toLowerCase()
          .replace(/_/g, '-');
        const [, host, port] = /^dns:\/\/\/([a-z0-9-]+):(\d+)$/.exec(address) ?? [];
        expect({ key, host, port: Number(port) }).toEqual({
          key,
          host: `${peer}-headless`,
          port: grpcPortOf(objects, peer),
        });
      }
    });

    it("has a headless Service over its ready pods' gRPC port, which no ServiceMonitor scrapes", () => {
      const objects = objectsOf(overlay);
      const headless = named<K8sObject & { spec: HeadlessServiceSpec }>(objects, 'Service', `${service}-headless`);
      const deployment = named<Workload>(objects, 'Deployment', service);
      expect(headless.spec.clusterIP).toBe('None');
      // Not-ready pods (starting, draining) must not be handed out to callers.
      expect(headless.spec.publishNotReadyAddresses ?? false).toBe(false);
      expect(headless.spec.selector).toEqual(deployment.spec.selector?.matchLabels);
      expect(headless.spec.ports).toEqual([
        expect.objectContaining({ name: 'grpc', port: grpcPortOf(objects, service), targetPort: 'grpc' }),
      ]);
      expect(headless.metadata.labels?.['app.kubernetes.io/component']).not.toBe('server');
    });

    it('reads its secrets from its own Secret, by key', () => {
      const refs = secretRefs(serverContainer(objectsOf(overlay), service));
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) expect(ref).toMatchObject({ secret: `${service}-secrets`, key: ref.variable });
      expect(refs.map((ref) => ref.variable)).toContain('DATABASE_URL');
    });

    it('has a migration Job running its dist/migrate.js with the same image', () => {
      const objects = objectsOf(overlay);
      const job = named<Workload>(objects, 'Job', `${service}-migrate`);
      const pod = podSpecOf(job);
      expect(pod.restartPolicy).toBe('Never');
      expect(pod.containers).toHaveLength(1);
      const [container] = pod.containers;
      expect(container.command).toEqual(['node', `services/${service}/dist/migrate.js`]);
      expect(container.image).toBe(serverContainer(objects, service).image);
      expect(secretRefs(container)).toEqual([
        { variable: 'DATABASE_URL', secret: `${service}-secrets`, key: 'DATABASE_URL', optional: false },
      ]);
      const env = containerEnv(container, ofKind<ConfigMapObject>(objects, 'ConfigMap'));
      expect(configProblems(migrationEnvSchema, env)).toEqual([]);
      expectLockedDown(job);
    });
  });

  it.each(services)('lets %s be deployed alone with the label selectors of docs/deploying.md', (service) => {
    const objects = objectsOf(overlay);
    const configStep = selectByLabels(objects, 'app.kubernetes.io/component=config');
    const migrationStep = selectByLabels(
      objects,
      `app.kubernetes.io/name=${service},app.kubernetes.io/component!=server`,
    );
    const serverStep = selectByLabels(objects, `app.kubernetes.io/name=${service},app.kubernetes.io/component=server`);
    expect(migrationStep.map((object) => `${object.kind} ${objectName(object)}`)).toContain(`Job ${service}-migrate`);
    expect(migrationStep.filter((object) => object.kind === 'Deployment')).toEqual([]);
    expect(serverStep.map((object) => `${object.kind} ${objectName(object)}`)).toEqual(
      expect.arrayContaining([
        `Deployment ${service}`,
        `Service ${service}`,
        `PodDisruptionBudget ${service}`,
        `NetworkPolicy ${service}`,
      ]),
    );
    const applied = new Set(
      [...configStep, ...migrationStep, ...serverStep].map((object) => `${object.kind} ${objectName(object)}`),
    );
    for (const workload of [
      named<Workload>(objects, 'Deployment', service),
      named<Workload>(objects, 'Job', `${service}-migrate`),
    ]) {
      const pod = podSpecOf(workload);
      const needed = [
        `ServiceAccount ${pod.serviceAccountName}`,
        ...pod.containers.flatMap(configMapsReferenced).map((name) => `ConfigMap ${name}`),
      ];
      expect({ workload: objectName(workload), missing: needed.filter((name) => !applied.has(name)) }).toEqual({
        workload: objectName(workload),
        missing: [],
      });
    }
    const others = serverStep.filter((object) => object.metadata.labels?.['app.kubernetes.io/name'] !== service);
    expect(others).toEqual([]);
  });

  it('issues identities from its own CA, and gives the ops tool its own, with no issuer or CA key in the namespace', () => {
    const objects = objectsOf(overlay);
    expectIdentityCertificate(
      named<CertificateObject>(objects, 'Certificate', 'ops-identity'),
      'ops',
      CA_ISSUERS[overlay],
    );
    const certificates = ofKind<CertificateObject>(objects, 'Certificate');
    expect(certificates.filter((certificate) => certificate.spec.isCA).map(objectName)).toEqual([]);
    expect(certificates.map((certificate) => certificate.spec.uris?.[0]).sort()).toEqual(
      [...services, 'ops'].map((name) => `${IDENTITY_URI_PREFIX}${name}`).sort(),
    );
    for (const certificate of certificates)
      expectIdentityCertificate(
        certificate,
        certificate.spec.uris?.[0]?.slice(IDENTITY_URI_PREFIX.length) ?? '',
        CA_ISSUERS[overlay],
      );
    expect(
      objects.filter((object) => object.kind === 'Issuer' || object.kind === 'ClusterIssuer').map(objectName),
    ).toEqual([]);
  });

  it('scales the webhook worker with exactly one autoscaler, and pins no replica count for it', () => {
    const objects = objectsOf(overlay);
    const targets = [
      ...ofKind<K8sObject & { spec: { scaleTargetRef: { name: string } } }>(objects, 'HorizontalPodAutoscaler'),
      ...ofKind<K8sObject & { spec: { scaleTargetRef: { name: string } } }>(objects, 'ScaledObject'),
    ].map((scaler) => scaler.spec.scaleTargetRef.name);
    expect(targets).toEqual(['webhook-delivery']);
    expect(named<Workload>(objects, 'Deployment', 'webhook-delivery').spec.replicas).toBeUndefined();
  });

  it('exposes only the gateway, over TLS', () => {
    const ingresses = ofKind<K8sObject & { spec: IngressSpec }>(objectsOf(overlay), 'Ingress');
    expect(ingresses.map(objectName)).toEqual(['gateway']);
    const [ingress] = ingresses;
    const hosts = ingress.spec.rules.map((rule) => rule.host);
    expect(ingress.spec.tls.flatMap((tls) => tls.hosts)).toEqual(hosts);
    expect(ingress.spec.tls.every((tls) => tls.secretName)).toBe(true);
    const backends = ingress.spec.rules.flatMap((rule) => rule.http.paths.map((entry) => entry.backend.service));
    expect(backends).toEqual(hosts.map(() => ({ name: 'gateway', port: { name: 'http' } })));
    const exposed = ofKind<K8sObject & { spec: { type?: string } }>(objectsOf(overlay), 'Service').filter(
      (svc) => (svc.spec.type ?? 'ClusterIP') !== 'ClusterIP',
    );
    expect(exposed.map(objectName)).toEqual([]);
  });
});

interface CertificateObject extends K8sObject {
  spec: {
    secretName: string;
    duration?: string;
    renewBefore?: string;
    uris?: string[];
    usages?: string[];
    isCA?: boolean;
    revisionHistoryLimit?: number;
    privateKey?: { rotationPolicy?: string };
    issuerRef: { name: string; kind?: string; group?: string };
  };
}

interface IssuerObject extends K8sObject {
  spec: { ca?: { secretName: string }; selfSigned?: Record<string, never> };
}

/** A cert-manager duration such as "168h" or "48h0m0s" in hours. */
function hoursOf(duration: string | undefined): number {
  const match = /^(\d+)h(?:0m(?:0s)?)?$/.exec(duration ?? '');
  if (!match) throw new Error(`expected a duration in whole hours, got ${duration}`);
  return Number(match[1]);
}

function expectRevisionHistory(certificate: CertificateObject): void {
  const where = `Certificate ${objectName(certificate)}`;
  const limit = certificate.spec.revisionHistoryLimit;
  expect({
    where,
    bounded: Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= REVISION_HISTORY_MAX,
  }).toEqual({ where, bounded: true });
}

function expectIdentityCertificate(certificate: CertificateObject, identity: string, caIssuer: string): void {
  const where = `Certificate ${objectName(certificate)}`;
  const { spec } = certificate;
  expect({ where, uris: spec.uris }).toEqual({ where, uris: [`${IDENTITY_URI_PREFIX}${identity}`] });
  expect({ where, issuer: spec.issuerRef }).toEqual({
    where,
    issuer: { group: 'cert-manager.io', kind: 'ClusterIssuer', name: caIssuer },
  });
  expect({ where, secretName: spec.secretName }).toEqual({ where, secretName: `${identity}-tls` });
  expect({ where, days: hoursOf(spec.duration) <= CERTIFICATE_HOURS_MAX }).toEqual({ where, days: true });
  expect({
    where,
    renewAhead:
      hoursOf(spec.renewBefore) >= RENEW_BEFORE_HOURS_MIN && hoursOf(spec.renewBefore) < hoursOf(spec.duration),
  }).toEqual({ where, renewAhead: true });
  expect({ where, usages: spec.usages }).toEqual({ where, usages: expect.arrayContaining(['client auth']) });
  expect({ where, newKey: spec.privateKey?.rotationPolicy }).toEqual({ where, newKey: 'Always' });
  expectRevisionHistory(certificate);
}

/** The Secret `secretName` is mounted read-only in the folder TLS_CA_FILE, TLS_CERT_FILE and TLS_KEY_FILE name. */
function expectMountedIdentity(
  pod: Workload['spec']['template']['spec'],
  container: Container,
  env: Record<string, string>,
  secretName: string,
): void {
  const volume = pod.volumes?.find((candidate) => candidate.secret?.secretName === secretName);
  expect({ secretName, mounted: Boolean(volume) }).toEqual({ secretName, mounted: true });
  const mount = container.volumeMounts?.find((candidate) => candidate.name === volume?.name);
  expect(mount?.readOnly).toBe(true);
  expect({
    ca: env.TLS_CA_FILE,
    cert: env.TLS_CERT_FILE,
    key: env.TLS_KEY_FILE,
  }).toEqual({
    ca: `${mount?.mountPath}/ca.crt`,
    cert: `${mount?.mountPath}/tls.crt`,
    key: `${mount?.mountPath}/tls.key`,
  });
  // Group-readable at most: 0440 for the fsGroup, nothing for others.
  expect(((volume?.secret?.defaultMode ?? 0o644) & 0o037) === 0).toBe(true);
}

/** kubectl's equality-based label selector (`k=v,k!=v`); `!=` also matches objects without the label. */
function selectByLabels(objects: K8sObject[], selector: string): K8sObject[] {
  const terms = selector
    .split(',')
    .map((term) => /^([^!=]+)(!?=)(.*)$/.exec(term))
    .map((match) => {
      if (!match) throw new Error(`unsupported selector ${selector}`);
      return { key: match[1], negated: match[2] === '!=', value: match[3] };
    });
  return objects.filter((object) =>
    terms.every(({ key, negated, value }) => (object.metadata.labels?.[key] === value) !== negated),
  );
}

function configMapsReferenced(container: Container): string[] {
  const fromEnv = (container.env ?? []).flatMap((variable) =>
    variable.valueFrom?.configMapKeyRef ? [variable.valueFrom.configMapKeyRef.name] : [],
  );
  const fromEnvFrom = (container.envFrom ?? []).flatMap((source) =>
    source.configMapRef ? [source.configMapRef.name] : [],
  );
  return [...new Set([...fromEnv, ...fromEnvFrom])];
}

interface IngressSpec {
  tls: { hosts: string[]; secretName?: string }[];
  rules: { host: string; http: { paths: { backend: { service: unknown } }[] } }[];
}

function expectGracefulRollout(objects: K8sObject[], service: string): void {
  const deployment = named<Workload>(objects, 'Deployment', service);
  expect({ service, strategy: deployment.spec.strategy }).toMatchObject({
    service,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } },
  });
  const container = serverContainer(objects, service);
  const env = containerEnv(container, ofKind<ConfigMapObject>(objects, 'ConfigMap'));
  const shutdownGraceMs = Number(env.SHUTDOWN_GRACE_MS ?? 10_000);
  const preStop = container.lifecycle?.preStop?.exec?.command ?? [];
  const preStopSeconds = preStop[0] === 'sleep' ? Number(preStop[1]) : 0;
  expect(preStopSeconds).toBeLessThanOrEqual(PRESTOP_SLEEP_SECONDS_MAX);
  const graceSeconds = podSpecOf(deployment).terminationGracePeriodSeconds ?? 30;
  // Kubernetes kills the pod at terminationGracePeriodSeconds, counted from before preStop.
  expect({
    service,
    drainFits: preStopSeconds * 1000 + shutdownGraceMs + RUN_SERVICE_EXIT_MARGIN_MS < graceSeconds * 1000,
  }).toEqual({ service, drainFits: true });
}

describe.each([...OVERLAYS])('the CA of %s', (overlay) => {
  function caObjects(): K8sObject[] {
    const objects = renderedCas.get(overlay);
    if (!objects) throw new Error(`the CA of ${overlay} was not rendered`);
    return objects;
  }

  function caCertificateOf(objects: K8sObject[]): CertificateObject {
    const issuer = named<IssuerObject>(objects, 'ClusterIssuer', CA_ISSUERS[overlay]);
    const certificate = ofKind<CertificateObject>(objects, 'Certificate').find(
      (candidate) => candidate.spec.secretName === issuer.spec.ca?.secretName,
    );
    if (!certificate) throw new Error(`no Certificate writes the Secret of ClusterIssuer ${CA_ISSUERS[overlay]}`);
    return certificate;
  }

  it('renders alone, every object labelled and matching its schema', () => {
    const objects = caObjects();
    expect(
      objects.flatMap((object) =>
        schemaProblems(object).map((problem) => `${object.kind} ${objectName(object)}: ${problem}`),
      ),
    ).toEqual([]);
    expect(
      objects
        .filter((object) => object.metadata.labels?.['app.kubernetes.io/part-of'] !== 'partner-payments')
        .map(objectName),
    ).toEqual([]);
  });

  it("keeps its key in cert-manager's namespace, out of every application namespace, behind a ClusterIssuer", () => {
    const objects = caObjects();
    const certificate = caCertificateOf(objects);
    expect(certificate.spec.isCA).toBe(true);
    expect(certificate.metadata.namespace).toBe(CA_NAMESPACE);
    expect(Object.values(NAMESPACES)).not.toContain(certificate.metadata.namespace);
    // Nothing else is namespaced: no Issuer, nothing that lands in an application namespace.
    expect(
      objects
        .filter((object) => object.kind !== 'ClusterIssuer')
        .map((object) => `${object.kind} ${objectName(object)} in ${object.metadata.namespace}`),
    ).toEqual([`Certificate ${objectName(certificate)} in ${CA_NAMESPACE}`]);
    const bootstrap = named<IssuerObject>(objects, 'ClusterIssuer', certificate.spec.issuerRef.name);
    expect({ kind: certificate.spec.issuerRef.kind, selfSigned: bootstrap.spec.selfSigned }).toEqual({
      kind: 'ClusterIssuer',
      selfSigned: {},
    });
  });

  it('renews the CA with the same key, early enough for every identity to carry the renewed CA first', () => {
    const certificate = caCertificateOf(caObjects());
    // A new CA key would leave the services that still hold the previous ca.crt unable to verify the others.
    expect(certificate.spec.privateKey?.rotationPolicy).toBe('Never');
    // Every identity is reissued (with the renewed CA in its ca.crt) within its lifetime, before the old CA expires.
    expect(hoursOf(certificate.spec.renewBefore)).toBeGreaterThan(CERTIFICATE_HOURS_MAX);
    expect(hoursOf(certificate.spec.renewBefore)).toBeLessThan(hoursOf(certificate.spec.duration));
    expectRevisionHistory(certificate);
  });
});

it('gives each environment a CA of its own', () => {
  const secrets = OVERLAYS.map(
    (overlay) =>
      named<IssuerObject>(renderedCas.get(overlay) ?? [], 'ClusterIssuer', CA_ISSUERS[overlay]).spec.ca?.secretName,
  );
  expect(new Set(Object.values(CA_ISSUERS)).size).toBe(OVERLAYS.length);
  expect(new Set(secrets).size).toBe(OVERLAYS.length);
});

describe('the base', () => {
  it("is production-safe on its own: production mode; sandbox is an overlay's choice", () => {
    const objects = renderKustomization('deploy/base');
    const platform = ofKind<ConfigMapObject>(objects, 'ConfigMap').find((configMap) =>
      configMap.metadata.name?.startsWith('platform-config'),
    );
    expect(platform?.data?.PLATFORM_MODE).toBe('production');
  });
});

describe('webhook worker scalers', () => {
  it.each([...SCALERS])('%s renders alone and matches its schemas', (scaler) => {
    const objects = renderKustomization(`deploy/scalers/${scaler}`);
    expect(objects.length).toBeGreaterThan(0);
    expect(objects.flatMap((object) => schemaProblems(object))).toEqual([]);
  });

  it("KEDA scales on the length of the queue webhook-delivery consumes, with the worker's own broker credentials", () => {
    const objects = renderKustomization('deploy/scalers/webhook-delivery-keda');
    const [scaledObject] = ofKind<
      K8sObject & {
        spec: { triggers: { type: string; metadata: Record<string, string>; authenticationRef?: { name: string } }[] };
      }
    >(objects, 'ScaledObject');
    const rabbit = scaledObject.spec.triggers.find((trigger) => trigger.type === 'rabbitmq');
    expect(rabbit?.metadata).toMatchObject({ queueName: 'webhook-delivery.partner-events', mode: 'QueueLength' });
    const [auth] = ofKind<
      K8sObject & { spec: { secretTargetRef: { parameter: string; name: string; key: string }[] } }
    >(objects, 'TriggerAuthentication');
    expect(rabbit?.authenticationRef?.name).toBe(objectName(auth));
    expect(auth.spec.secretTargetRef).toContainEqual({
      parameter: 'host',
      name: 'webhook-delivery-secrets',
      key: 'AMQP_URL',
    });
  });
});

describe('the ops tool Job template', () => {
  const [job] = readYamlFile(path.join(REPO_ROOT, 'deploy', 'ops', 'ops-job.yaml')) as Workload[];

  it('matches the Job schema and is locked down', () => {
    expect(schemaProblems(job)).toEqual([]);
    expectLockedDown(job);
    expect(podSpecOf(job).serviceAccountName).toBe('ops');
  });

  it('calls as the ops identity, mounted read-only where its TLS variables point', () => {
    const [container] = podSpecOf(job).containers;
    const env = Object.fromEntries((container.env ?? []).map((variable) => [variable.name, variable.value ?? '']));
    expectMountedIdentity(podSpecOf(job), container, env, 'ops-tls');
  });

  it('carries the label every service admits on its gRPC port, and is never retried', () => {
    expect(job.spec.template.metadata?.labels?.['app.kubernetes.io/name']).toBe('ops');
    expect((job.spec as { backoffLimit?: number }).backoffLimit).toBe(0);
    expect(podSpecOf(job).containers[0].command).toEqual(['node', 'tools/ops/dist/main.js']);
  });
});
