// Proves docker-compose.yml is in step with the services: it names no service that
// does not exist under services/, every service under services/ has its container
// and its migrate-<name> one-shot (which must finish before the service starts),
// every container has a health check, dependencies come up healthy first, and
// each container's environment is accepted by that service's configuration schema
// (`${NAME:-default}` taken at its default, as compose does without a .env file;
// `${NAME:?message}`, a variable compose refuses to start without, given a sample).
// The keys have no default at all; the gateway is published on 127.0.0.1 only; each
// container mounts its own identity folder and nothing of another's; the
// infrastructure runs supported release lines; and the one-shot `sandbox-partner`
// (the ops tool's image running scripts/sandbox-partner.mjs) waits for a healthy gateway,
// reaches the services `ops partner create` calls, as the ops identity, and keeps the
// credentials in a volume.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { KNOWN_DEVELOPMENT_KEYS, migrationEnvSchema } from '@platform/config';
import { configProblems, configSchemaOf, readYamlFile, REPO_ROOT, serviceNames } from './repository';

interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[] | string; disable?: boolean };
  restart?: string;
  read_only?: boolean;
  cap_drop?: string[];
  ports?: string[];
}

const INFRASTRUCTURE = ['postgres', 'redis', 'rabbitmq'];
/** One-shot helpers built from a tool's workspace rather than a service's. */
const HELPERS = ['sandbox-partner'];
const DEFAULTED_VARIABLE = /\$\{([A-Z0-9_]+):-([^}]*)\}/g;
const REQUIRED_VARIABLE = /\$\{([A-Z0-9_]+):\?[^}]*\}/g;
/** What a `${NAME:?}` variable is set to for the schema check: a well-formed, random-looking key. */
const REQUIRED_SAMPLE = '3f9a1c7e5b2d4086a1e9c3b7d5f20846e1a3c5b7d9f0213546789abcdef01234';
/** Variables that hold keys: compose must refuse to start without them, never fall back to a default. */
const KEY_VARIABLE = /(KEY|SECRET|PASSWORD|TOKEN)/;

const [compose] = readYamlFile(path.join(REPO_ROOT, 'docker-compose.yml')) as {
  services: Record<string, ComposeService>;
}[];
const composeServices = compose.services;
const services = serviceNames();

function entry(name: string): ComposeService {
  const found = composeServices[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** The environment as compose passes it when no variable is set: `${X:-d}` becomes d. */
function environmentOf(name: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(entry(name).environment ?? {})) {
    if (value === null) continue;
    const text = String(value);
    if (/\$\{?[A-Z]/.test(text.replace(DEFAULTED_VARIABLE, '').replace(REQUIRED_VARIABLE, '')))
      throw new Error(`${name}.${key}: a variable neither defaulted nor required (${text})`);
    env[key] = text
      .replace(DEFAULTED_VARIABLE, (_match, _name, fallback: string) => fallback)
      .replace(REQUIRED_VARIABLE, REQUIRED_SAMPLE);
  }
  return env;
}

describe('docker-compose.yml', () => {
  it('names only services that exist under services/ (besides the infrastructure)', () => {
    const unknown = Object.keys(composeServices)
      .map((name) => name.replace(/^migrate-/, ''))
      .filter(
        (name) =>
          ![...INFRASTRUCTURE, ...HELPERS].includes(name) &&
          !existsSync(path.join(REPO_ROOT, 'services', name, 'package.json')),
      );
    expect(unknown).toEqual([]);
  });

  it('has every service under services/ and its migration one-shot', () => {
    const missing = services
      .flatMap((service) => [service, `migrate-${service}`])
      .filter((name) => !composeServices[name]);
    expect(missing).toEqual([]);
  });

  it.each(services)('builds %s from the root Dockerfile with its folder as SERVICE', (service) => {
    for (const name of [service, `migrate-${service}`]) {
      expect({ name, build: entry(name).build }).toMatchObject({
        name,
        build: { context: '.', dockerfile: 'Dockerfile', args: { SERVICE: service } },
      });
    }
    expect(entry(`migrate-${service}`).image).toBe(entry(service).image);
  });

  it.each(services)('migrates %s once, against its database, before the service starts', (service) => {
    const migration = entry(`migrate-${service}`);
    expect(migration.command).toEqual(['node', `services/${service}/dist/migrate.js`]);
    expect(migration.restart).toBe('no');
    expect(migration.depends_on?.postgres?.condition).toBe('service_healthy');
    const env = environmentOf(`migrate-${service}`);
    expect(configProblems(migrationEnvSchema, env)).toEqual([]);
    expect(env.DATABASE_URL).toBe(environmentOf(service).DATABASE_URL);
    expect(new URL(env.DATABASE_URL).pathname).toBe(`/svc_${service.replace(/-/g, '_')}`);
    expect(entry(service).depends_on?.[`migrate-${service}`]?.condition).toBe('service_completed_successfully');
  });

  it.each(services)('gives %s an environment its configuration schema accepts', (service) => {
    expect({ service, refused: configProblems(configSchemaOf(service), environmentOf(service)) }).toEqual({
      service,
      refused: [],
    });
  });

  it.each(services)("points every gRPC address of %s at that peer's container and GRPC_PORT", (service) => {
    const addresses = Object.entries(environmentOf(service)).filter(([key]) => key.endsWith('_GRPC_ADDR'));
    expect(addresses.length).toBeGreaterThan(0);
    for (const [key, address] of addresses) {
      const [host, port] = address.split(':');
      const peer = key
        .replace(/_GRPC_ADDR$/, '')
        .toLowerCase()
        .replace(/_/g, '-');
      expect({ key, host, port }).toEqual({ key, host: peer, port: environmentOf(peer).GRPC_PORT });
    }
  });

  it.each(services)('runs %s read-only, without capabilities, with a health check', (service) => {
    const container = entry(service);
    expect(container.read_only).toBe(true);
    expect(container.cap_drop).toEqual(['ALL']);
    expect(container.healthcheck?.test).toBeDefined();
    expect(container.healthcheck?.disable).not.toBe(true);
  });

  it('starts every service after the infrastructure and the peers it calls are healthy', () => {
    for (const name of Object.keys(composeServices).filter((candidate) => !HELPERS.includes(candidate))) {
      const env = INFRASTRUCTURE.includes(name) ? {} : environmentOf(name);
      const needs = [
        ...(env.DATABASE_URL ? ['postgres'] : []),
        ...(env.AMQP_URL && !name.startsWith('migrate-') && configSchemaReads(name, 'AMQP_URL') ? ['rabbitmq'] : []),
        ...(env.REDIS_URL ? ['redis'] : []),
      ];
      for (const dependency of needs) {
        expect({ name, dependency, condition: entry(name).depends_on?.[dependency]?.condition }).toEqual({
          name,
          dependency,
          condition: 'service_healthy',
        });
      }
    }
    for (const dependency of Object.keys(entry('gateway').depends_on ?? {}).filter((name) => services.includes(name))) {
      expect(entry(dependency).healthcheck?.test).toBeDefined();
    }
  });

  it('has a health check on every infrastructure container, and publishes only the gateway, on 127.0.0.1', () => {
    for (const name of INFRASTRUCTURE)
      expect({ name, health: Boolean(entry(name).healthcheck?.test) }).toEqual({ name, health: true });
    const published = Object.keys(composeServices).filter((name) => (entry(name).ports ?? []).length > 0);
    expect(published).toEqual(['gateway']);
    expect(entry('gateway').ports).toEqual(['127.0.0.1:8080:8080']);
  });

  it('refuses to start without its keys: each is required, none has a default', () => {
    const keyed = Object.entries(composeServices).flatMap(([name, service]) =>
      Object.entries(service.environment ?? {})
        .filter(([key]) => KEY_VARIABLE.test(key) && !/_FILE$/.test(key))
        .map(([key, value]) => ({ name, key, value: String(value) })),
    );
    expect(keyed.length).toBeGreaterThan(0);
    for (const { name, key, value } of keyed.filter((entry) => !/PASSWORD/.test(entry.key))) {
      expect({ name, key, required: /^\$\{[A-Z0-9_]+:\?[^}]+\}$/.test(value) }).toEqual({ name, key, required: true });
    }
  });

  it.each(services)('mounts the identity folder of %s only, read-only, where its TLS variables point', (service) => {
    const env = environmentOf(service);
    const mounts = (entry(service) as ComposeService & { volumes?: string[] }).volumes ?? [];
    expect(mounts).toEqual([`./.compose/tls/identities/${service}:/run/platform/tls:ro`]);
    expect([env.TLS_CA_FILE, env.TLS_CERT_FILE, env.TLS_KEY_FILE]).toEqual([
      '/run/platform/tls/ca.crt',
      '/run/platform/tls/tls.crt',
      '/run/platform/tls/tls.key',
    ]);
  });
});

describe('safe defaults of the services compose runs', () => {
  /** Each service's keys: the variables compose requires (`${NAME:?}`) and whose names say they hold a key. */
  const keyed = services
    .map((service) => ({
      service,
      keys: Object.entries(entry(service).environment ?? {})
        .filter(([key, value]) => KEY_VARIABLE.test(key) && new RegExp(REQUIRED_VARIABLE.source).test(String(value)))
        .map(([key]) => key),
    }))
    .filter(({ keys }) => keys.length > 0);
  const refusedNames = (service: string, env: Record<string, string>) =>
    configProblems(configSchemaOf(service), env).map((problem) => problem.split(':')[0]);

  it('names the services that hold keys', () => {
    expect(keyed.map(({ service }) => service).sort()).toEqual([
      'gateway',
      'payouts',
      'wallet-registry',
      'webhook-delivery',
    ]);
  });

  it.each(services)('%s does not start without PLATFORM_MODE: there is no default', (service) => {
    const { PLATFORM_MODE: _mode, ...withoutMode } = environmentOf(service);
    expect(refusedNames(service, withoutMode)).toContain('PLATFORM_MODE');
  });

  it.each(keyed)(
    '$service refuses every published development key in production mode, and takes a fresh one',
    ({ service, keys }) => {
      for (const key of keys) {
        for (const developmentKey of KNOWN_DEVELOPMENT_KEYS) {
          const production = { ...environmentOf(service), PLATFORM_MODE: 'production', [key]: developmentKey };
          expect({ key, developmentKey, refused: refusedNames(service, production).includes(key) }).toEqual({
            key,
            developmentKey,
            refused: true,
          });
          // The sandbox keeps working with them (they are what a laptop's .env may hold).
          expect(refusedNames(service, { ...production, PLATFORM_MODE: 'sandbox' })).not.toContain(key);
        }
        expect(refusedNames(service, { ...environmentOf(service), PLATFORM_MODE: 'production' })).not.toContain(key);
      }
    },
  );
});

describe('docker-compose.yml infrastructure and sandbox partner', () => {
  /** Release lines with upstream support at the time of writing; an older tag fails here. */
  const SUPPORTED_MAJOR_MINOR: Record<string, (version: number[]) => boolean> = {
    postgres: ([major]) => major >= 14,
    redis: ([major, minor = 4]) => major > 7 || (major === 7 && minor >= 2),
    rabbitmq: ([major, minor = 0]) => major >= 4 || (major === 3 && minor >= 13),
  };

  it.each(INFRASTRUCTURE)('runs %s on a supported release line', (name) => {
    const [image, tag = 'latest'] = (entry(name).image ?? '').split(':');
    expect(image).toBe(name);
    const version = (/^\d+(\.\d+)?/.exec(tag)?.[0] ?? '').split('.').filter(Boolean).map(Number);
    expect({ name, tag, supported: version.length > 0 && SUPPORTED_MAJOR_MINOR[name](version) }).toEqual({
      name,
      tag,
      supported: true,
    });
  });

  it('creates the sandbox partner once the gateway is healthy, with the ops tool, into a volume', () => {
    const helper = entry('sandbox-partner') as ComposeService & { volumes?: string[] };
    expect(helper.build).toEqual({
      context: '.',
      dockerfile: 'Dockerfile',
      args: { SERVICE: 'ops', WORKSPACE: 'tools/ops' },
    });
    expect(helper.restart).toBe('no');
    expect(helper.read_only).toBe(true);
    expect(helper.depends_on?.gateway?.condition).toBe('service_healthy');
    expect(helper.command).toEqual(['node', '/app/scripts/sandbox-partner.mjs']);
    expect(existsSync(path.join(REPO_ROOT, 'scripts', 'sandbox-partner.mjs'))).toBe(true);
    expect(helper.volumes).toContain('./scripts:/app/scripts:ro');
    const env = environmentOf('sandbox-partner');
    const volume = (helper.volumes ?? []).find((mount) => mount.startsWith('sandbox-partner:'));
    expect(volume).toBeDefined();
    expect(env.SANDBOX_PARTNER_FILE.startsWith(`${volume!.split(':')[1]}/`)).toBe(true);
    expect(new URL(env.SANDBOX_GATEWAY_URL).host).toBe(`gateway:${environmentOf('gateway').HTTP_PORT}`);
    for (const peer of ['gateway', 'trading', 'ledger', 'wallet-registry']) {
      const key = `${peer.toUpperCase().replace(/-/g, '_')}_GRPC_ADDR`;
      expect({ key, address: env[key] }).toEqual({ key, address: `${peer}:${environmentOf(peer).GRPC_PORT}` });
    }
    expect(helper.volumes).toContain('./.compose/tls/identities/ops:/run/platform/tls:ro');
    expect([env.TLS_CA_FILE, env.TLS_CERT_FILE, env.TLS_KEY_FILE]).toEqual([
      '/run/platform/tls/ca.crt',
      '/run/platform/tls/tls.crt',
      '/run/platform/tls/tls.key',
    ]);
    expect((compose as unknown as { volumes: Record<string, unknown> }).volumes).toHaveProperty('sandbox-partner');
  });
});

/** Whether a service's schema reads a variable (the shared block hands AMQP_URL to all). */
function configSchemaReads(service: string, variable: string): boolean {
  const schema = configSchemaOf(service) as unknown as {
    shape?: Record<string, unknown>;
    _def?: { schema?: { shape?: Record<string, unknown> } };
  };
  const shape = schema.shape ?? schema._def?.schema?.shape;
  if (!shape) throw new Error(`cannot read the variables of ${service}'s schema`);
  return variable in shape;
}
