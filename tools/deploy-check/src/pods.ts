/**
 * Reading pods out of rendered objects: their containers, and the environment
 * a container would start with (ConfigMap values as rendered, Secret keys
 * replaced by well-formed samples, since no secret value lives in the repository).
 */
import type { K8sObject } from './repository';

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path: string; port: number | string };
  periodSeconds?: number;
  failureThreshold?: number;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  containers: Container[];
  initContainers?: Container[];
  volumes?: {
    name: string;
    emptyDir?: Record<string, unknown>;
    secret?: { secretName: string; defaultMode?: number };
  }[];
}

export interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> };
    strategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
    template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
  };
}

export interface ConfigMapObject extends K8sObject {
  data?: Record<string, string>;
}

/** Well-formed stand-ins for Secret keys, so the service's schema can judge the rest. */
// Random-looking: production mode refuses published and low-entropy keys (libs/config).
const HEX_KEY_SAMPLE = '3f9a1c7e5b2d4086a1e9c3b7d5f20846e1a3c5b7d9f0213546789abcdef01234';
export const SECRET_SAMPLES: Record<string, string> = {
  DATABASE_URL: 'postgres://platform:sample@postgres:5432/svc_sample',
  AMQP_URL: 'amqp://platform:sample@rabbitmq:5672/',
  REDIS_URL: 'redis://redis:6379/0',
  CREDENTIAL_ENCRYPTION_KEY: HEX_KEY_SAMPLE,
  WEBHOOK_SECRET_ENCRYPTION_KEY: HEX_KEY_SAMPLE,
  CODE_HASH_KEY: HEX_KEY_SAMPLE,
  SMTP_URL: 'smtps://mailer:sample@smtp.example.com:465',
};

export function podSpecOf(workload: Workload): PodSpec {
  return workload.spec.template.spec;
}

function configMapData(configMaps: ConfigMapObject[], name: string): Record<string, string> {
  const configMap = configMaps.find((candidate) => candidate.metadata.name === name);
  if (!configMap) throw new Error(`ConfigMap ${name} is referenced but not rendered`);
  return configMap.data ?? {};
}

function secretSample(key: string): string {
  const sample = SECRET_SAMPLES[key];
  if (sample === undefined) throw new Error(`no sample value for Secret key ${key}: add one to SECRET_SAMPLES`);
  return sample;
}

function resolveVar(variable: EnvVar, configMaps: ConfigMapObject[]): string | undefined {
  if (variable.value !== undefined) return variable.value;
  const secretRef = variable.valueFrom?.secretKeyRef;
  if (secretRef) return secretSample(secretRef.key);
  const configRef = variable.valueFrom?.configMapKeyRef;
  if (configRef) return configMapData(configMaps, configRef.name)[configRef.key];
  return undefined;
}

/** The environment the container starts with, envFrom first, then env (which wins, as in Kubernetes). */
export function containerEnv(container: Container, configMaps: ConfigMapObject[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.secretRef)
      throw new Error(
        `container ${container.name}: envFrom secretRef hides which keys it needs; use secretKeyRef per variable`,
      );
    if (source.configMapRef) Object.assign(env, configMapData(configMaps, source.configMapRef.name));
  }
  for (const variable of container.env ?? []) {
    const value = resolveVar(variable, configMaps);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

/** Names of the Secret keys a container reads, with the Secret they come from. */
export function secretRefs(
  container: Container,
): { variable: string; secret: string; key: string; optional: boolean }[] {
  return (container.env ?? []).flatMap((variable) => {
    const ref = variable.valueFrom?.secretKeyRef;
    return ref ? [{ variable: variable.name, secret: ref.name, key: ref.key, optional: ref.optional === true }] : [];
  });
}

/** A "1", "500m", "0.5" CPU quantity in millicores; throws on anything else. */
export function cpuMillicores(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(m?)$/.exec(String(quantity));
  if (!match) throw new Error(`unexpected CPU quantity ${quantity}`);
  return match[2] === 'm' ? Number(match[1]) : Number(match[1]) * 1000;
}
