// Infrastructure for one stack: installs PostgreSQL, Redis and RabbitMQ when missing,
// starts and stops them by PID (no systemd, no Docker here), and keeps the stack's
// secrets and local TLS material. Everything lives in the profile's stack folder.
import { randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { commandExists, ensureDir, isRoot, readJson, run, writeJson } from './processes.mjs';
import { POSTGRES_BIN_DIR, isPostgresRunning, postgresPaths, startPostgres, stopPostgres } from './postgres.mjs';
import { redisPid, startRedis, stopRedis } from './redis.mjs';
import { RABBITMQ_SERVER, amqpAnswers, epmdPids, rabbitPid, startRabbit, stopRabbit } from './rabbitmq.mjs';

export { ensureDatabases, databaseUrl, startPostgres, stopPostgres } from './postgres.mjs';
export { startRedis, stopRedis } from './redis.mjs';
export { startRabbit, stopRabbit, amqpAnswers } from './rabbitmq.mjs';

// ---------------------------------------------------------------- installation

// Binary that proves a package is installed → the Debian package providing it.
const REQUIRED_PACKAGES = [
  { binary: path.join(POSTGRES_BIN_DIR, 'pg_ctl'), debianPackage: 'postgresql' },
  { binary: 'redis-server', debianPackage: 'redis-server' },
  { binary: RABBITMQ_SERVER, debianPackage: 'rabbitmq-server' },
  { binary: 'openssl', debianPackage: 'openssl' },
  // `kubectl kustomize` renders deploy/ for the manifest checks (tools/deploy-check).
  { binary: 'kubectl', debianPackage: 'kubernetes-client' },
];

function privileged(command, args) {
  if (isRoot()) return [command, args];
  if (commandExists('sudo')) return ['sudo', ['-E', command, ...args]];
  throw new Error(`${command} needs root and sudo is not available`);
}

/** Installs with apt-get whatever server or tool is missing; quick no-op otherwise. */
export async function ensureInfraInstalled({ logFile } = {}) {
  const missing = REQUIRED_PACKAGES.filter(({ binary }) => !commandExists(binary)).map((p) => p.debianPackage);
  if (missing.length === 0) return 'infrastructure already installed';
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run(...privileged('apt-get', ['update']), { env, logFile });
  await run(...privileged('apt-get', ['install', '-y', ...missing]), { env, logFile });
  return `installed ${missing.join(', ')}`;
}

// ---------------------------------------------------------------- secrets

const SECRET_NAMES = ['CREDENTIAL_ENCRYPTION_KEY', 'WEBHOOK_SECRET_ENCRYPTION_KEY', 'CODE_HASH_KEY'];
const SECRET_KEY_BYTES = 32;

/**
 * Encryption keys for the stack, generated once and kept: data sealed with them must
 * still open after a stop and start.
 */
export function ensureSecrets(profile) {
  const saved = readJson(profile.secretsFile) ?? {};
  const valid = (value) => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
  if (SECRET_NAMES.every((name) => valid(saved[name]))) return saved;
  const secrets = { ...saved };
  for (const name of SECRET_NAMES) {
    if (!valid(secrets[name])) secrets[name] = randomBytes(SECRET_KEY_BYTES).toString('hex');
  }
  writeJson(profile.secretsFile, secrets, 0o600);
  return secrets;
}

// ---------------------------------------------------------------- local TLS

const CA_VALIDITY_DAYS = 3650;
const SERVER_VALIDITY_DAYS = 825;
const RENEW_BEFORE_EXPIRY_MS = 30 * 24 * 3600 * 1000;

const STACK_CA_NAME = 'Partner Platform Local CA';
const PEM_CERTIFICATE_HEADER = '-----BEGIN CERTIFICATE-----';

function tlsFiles(dir) {
  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    caKeyFile: path.join(dir, 'ca-key.pem'),
    certFile: path.join(dir, 'server.pem'),
    keyFile: path.join(dir, 'server-key.pem'),
  };
}

export function tlsPaths(profile) {
  // The stack's CA together with the caller's NODE_EXTRA_CA_CERTS (trustedCaFile).
  return { ...tlsFiles(profile.tlsDir), caBundleFile: path.join(profile.tlsDir, 'trusted-ca-bundle.pem') };
}

function certificateStillGood(tls) {
  if (![tls.caFile, tls.certFile, tls.keyFile].every(existsSync)) return false;
  try {
    const server = new X509Certificate(readFileSync(tls.certFile));
    const ca = new X509Certificate(readFileSync(tls.caFile));
    return server.checkIssued(ca) && Date.parse(server.validTo) - Date.now() > RENEW_BEFORE_EXPIRY_MS;
  } catch {
    return false;
  }
}

const SERVER_EXTENSIONS = [
  'basicConstraints = critical, CA:FALSE',
  'keyUsage = critical, digitalSignature, keyEncipherment',
  'extendedKeyUsage = serverAuth',
  'subjectAltName = DNS:localhost, IP:127.0.0.1',
  'subjectKeyIdentifier = hash',
  'authorityKeyIdentifier = keyid, issuer',
  '',
].join('\n');

/** Writes a CA named `caName` and a localhost certificate it signs into `dir` with the openssl CLI. */
async function generateTls(dir, caName, logFile) {
  const file = (name) => path.join(dir, name);
  const openssl = (...args) => run('openssl', args, { logFile });
  await openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-sha256',
    '-days',
    String(CA_VALIDITY_DAYS),
    '-subj',
    `/CN=${caName}`,
    '-keyout',
    file('ca-key.pem'),
    '-out',
    file('ca.pem'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  await openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    file('server-key.pem'),
    '-out',
    file('server.csr'),
  );
  writeFileSync(file('server.ext'), SERVER_EXTENSIONS);
  await openssl(
    'x509',
    '-req',
    '-sha256',
    '-days',
    String(SERVER_VALIDITY_DAYS),
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca-key.pem'),
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  );
  for (const name of ['server.csr', 'server.ext']) rmSync(file(name));
}

/**
 * A CA named `caName` and a server certificate it signs for localhost/127.0.0.1, in `dir`
 * (ca.pem, ca-key.pem, server.pem, server-key.pem): made once, again only when near expiry.
 */
export async function ensureCertificates(dir, { caName, logFile }) {
  const tls = tlsFiles(dir);
  if (certificateStillGood(tls)) return tls;
  // Build in a scratch folder and swap it in, so an interrupted run never leaves half a set.
  const scratch = `${dir}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  ensureDir(scratch);
  await generateTls(scratch, caName, logFile);
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  return tls;
}

/**
 * The stack's local CA and its localhost certificate. Test HTTPS webhook receivers serve
 * it; services trust the CA through NODE_EXTRA_CA_CERTS (trustedCaFile).
 */
export function ensureTls(profile) {
  return ensureCertificates(profile.tlsDir, { caName: STACK_CA_NAME, logFile: path.join(profile.logsDir, 'tls.log') });
}

/**
 * The file the services get as NODE_EXTRA_CA_CERTS. Node reads one file only, so when the
 * caller gave one of their own (a partner trusting their local receiver's CA), the stack's
 * CA and theirs are written together into one bundle in the stack's TLS folder; otherwise
 * it is the stack's CA alone. A caller's file that cannot be read or holds no certificate
 * fails here, at start, instead of every webhook failing later.
 */
export function trustedCaFile(profile, env = process.env) {
  const tls = tlsPaths(profile);
  const callerFile = callerCaFile(env);
  if (!callerFile || callerFile === tls.caFile) return tls.caFile;
  // Already the bundle (copied from a service's environment): nothing to add.
  if (callerFile === tls.caBundleFile) return tls.caBundleFile;
  const bundle = `${readFileSync(tls.caFile, 'utf8').trimEnd()}\n${readCallerCa(callerFile).trimEnd()}\n`;
  if (!existsSync(tls.caBundleFile) || readFileSync(tls.caBundleFile, 'utf8') !== bundle) {
    const scratch = `${tls.caBundleFile}.tmp-${process.pid}`;
    writeFileSync(scratch, bundle);
    renameSync(scratch, tls.caBundleFile);
  }
  return tls.caBundleFile;
}

function readCallerCa(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`NODE_EXTRA_CA_CERTS names ${file}, which cannot be read (${error.code ?? error.message})`);
  }
  if (!text.includes(PEM_CERTIFICATE_HEADER))
    throw new Error(`NODE_EXTRA_CA_CERTS names ${file}, which holds no PEM certificate`);
  return text;
}

/**
 * The caller's NODE_EXTRA_CA_CERTS as an absolute path, or null. A relative path is taken
 * from where the caller ran npm (INIT_CWD), since npm runs scripts from the repository root.
 */
export function callerCaFile(env = process.env) {
  const given = env.NODE_EXTRA_CA_CERTS?.trim();
  return given ? path.resolve(env.INIT_CWD || process.cwd(), given) : null;
}

// ---------------------------------------------------------------- all three servers

export function prepareStackFolder(profile) {
  for (const dir of [profile.stackDir, profile.logsDir, profile.pidsDir]) ensureDir(dir);
}

/** Starts PostgreSQL, Redis and RabbitMQ in that order; each is harmless when already up. */
export async function startInfra(profile) {
  prepareStackFolder(profile);
  return [await startPostgres(profile), await startRedis(profile), await startRabbit(profile)];
}

/** Stops RabbitMQ (and its epmd), Redis and PostgreSQL; data is kept. */
export async function stopInfra(profile) {
  return [await stopRabbit(profile), await stopRedis(profile), await stopPostgres(profile)];
}

/** What runs for this stack: one entry per server with its port and PID (or null). */
export async function infraStatus(profile) {
  const pg = existsSync(profile.stackDir) ? await postgresPaths(profile) : null;
  const postgresUp = pg ? await isPostgresRunning(pg) : false;
  const postgresPid = postgresUp
    ? Number(readFileSync(path.join(pg.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
    : null;
  return {
    postgres: { port: profile.ports.postgres, pid: postgresPid, running: postgresUp },
    redis: { port: profile.ports.redis, pid: redisPid(profile), running: redisPid(profile) !== null },
    rabbitmq: {
      port: profile.ports.amqp,
      pid: rabbitPid(profile),
      running: (await amqpAnswers(profile.ports.amqp)) && rabbitPid(profile) !== null,
    },
    epmd: { port: profile.ports.epmd, pid: epmdPids(profile)[0] ?? null, running: epmdPids(profile).length > 0 },
  };
}
