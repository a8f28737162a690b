/**
 * What the checks read: the repository's services, deploy/ rendered by
 * `kubectl kustomize`, docker-compose.yml, each service's configuration
 * schema (its built dist/config.js: the very schema it validates its
 * environment with at start) and its gRPC allow-lists (dist/grpc/access.js).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const DEPLOY_DIR = path.join(REPO_ROOT, 'deploy');
export const OVERLAYS = ['sandbox', 'production'] as const;
export type Overlay = (typeof OVERLAYS)[number];
/** The webhook worker's two alternative scalers; an overlay uses exactly one. */
export const SCALERS = ['webhook-delivery-hpa', 'webhook-delivery-keda'] as const;

/** Rendering one kustomization takes well under a second; anything near this is a hang. */
const KUSTOMIZE_TIMEOUT_MS = 60_000;
const KUSTOMIZE_OUTPUT_BYTES_MAX = 16 * 1024 * 1024;

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name?: string;
    generateName?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

/** Folder names under services/ that are workspaces (have a package.json). */
export function serviceNames(): string[] {
  const servicesDir = path.join(REPO_ROOT, 'services');
  return readdirSync(servicesDir)
    .filter((name) => existsSync(path.join(servicesDir, name, 'package.json')))
    .sort();
}

/** Every document of a YAML text; a document that does not parse fails the check. */
export function parseYamlDocuments(text: string, source: string): unknown[] {
  // merge: docker-compose.yml shares blocks with YAML merge keys (<<: *anchor).
  return parseAllDocuments(text, { merge: true }).flatMap((document) => {
    if (document.errors.length > 0)
      throw new Error(`${source}: ${document.errors.map((error) => error.message).join('; ')}`);
    const value = document.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

export function readYamlFile(file: string): unknown[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), path.relative(REPO_ROOT, file));
}

/** KUBECTL names another binary; otherwise kubectl from PATH (npm test installs kubernetes-client). */
function kubectl(): string {
  return process.env.KUBECTL?.trim() || 'kubectl';
}

/** `kubectl kustomize <dir>` as objects. Throws with kubectl's own message when it cannot render. */
export function renderKustomization(relativeDir: string): K8sObject[] {
  const dir = path.join(REPO_ROOT, relativeDir);
  let output: string;
  try {
    output = execFileSync(kubectl(), ['kustomize', dir], {
      encoding: 'utf8',
      timeout: KUSTOMIZE_TIMEOUT_MS,
      maxBuffer: KUSTOMIZE_OUTPUT_BYTES_MAX,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') {
      throw new Error(
        `${kubectl()} not found: install the Debian package kubernetes-client (npm test does) or set KUBECTL`,
      );
    }
    throw new Error(`kubectl kustomize ${relativeDir} failed: ${failure.stderr?.trim() || failure.message}`);
  }
  return parseYamlDocuments(output, `kubectl kustomize ${relativeDir}`) as K8sObject[];
}

/** Every file under a folder, recursively. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

export function objectName(object: K8sObject): string {
  return object.metadata.name ?? object.metadata.generateName ?? '(unnamed)';
}

export function ofKind<T = K8sObject>(objects: K8sObject[], kind: string): T[] {
  return objects.filter((object) => object.kind === kind) as unknown as T[];
}

interface SafeParseSchema {
  safeParse(
    env: Record<string, string>,
  ): { success: true } | { success: false; error: { issues: { path: (string | number)[]; message: string }[] } };
}

/** The service's configuration schema, from its build (npm test builds before the unit run). */
export function configSchemaOf(service: string): SafeParseSchema {
  const file = path.join(REPO_ROOT, 'services', service, 'dist', 'config.js');
  if (!existsSync(file))
    throw new Error(`${path.relative(REPO_ROOT, file)} is missing: build first (npx turbo run build)`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(file) as { configSchema?: SafeParseSchema };
  if (!module.configSchema) throw new Error(`services/${service}/src/config.ts exports no configSchema`);
  return module.configSchema;
}

/**
 * Every identity a service's allow-lists admit on at least one of its RPCs, from its
 * build (dist/grpc/access.js: the very tables its server enforces), sorted.
 */
export function allowListedCallers(service: string): string[] {
  const file = path.join(REPO_ROOT, 'services', service, 'dist', 'grpc', 'access.js');
  if (!existsSync(file))
    throw new Error(`${path.relative(REPO_ROOT, file)} is missing: build first (npx turbo run build)`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tables = Object.entries(require(file) as Record<string, unknown>).filter(([name]) => name.endsWith('_ACCESS'));
  if (tables.length !== 1)
    throw new Error(`services/${service}/src/grpc/access.ts exports ${tables.length} *_ACCESS tables, expected one`);
  const identities = new Set<string>();
  collectIdentities(tables[0][1], identities);
  return [...identities].sort();
}

/** The identities in an access table: arrays of names at any depth (service → method → callers). */
function collectIdentities(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const identity of value) into.add(String(identity));
  } else if (value !== null && typeof value === 'object') {
    for (const nested of Object.values(value)) collectIdentities(nested, into);
  }
}

/** The variables a schema refuses in this environment, as "NAME: why". Empty when it is accepted. */
export function configProblems(schema: SafeParseSchema, env: Record<string, string>): string[] {
  const result = schema.safeParse(env);
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
}
