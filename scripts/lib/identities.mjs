// Service identities of a local stack: one certificate per service and one for the ops
// tool, issued from the stack's own CA (ensureTls) with the openssl CLI. Each names its
// identity as the URI SAN spiffe://platform/<name>, which the services' allow-lists
// check. Short-lived like production's: valid 7 days, issued again by `npm start` and
// `npm test` once fewer than 2 days remain, or when the CA changed. Replacement is
// atomic per file (CA, then key, then certificate); running services reload the files
// without a restart.
//
// Each identity has a folder of its own laid out as cert-manager's Secrets are
// (ca.crt, tls.crt, tls.key), so one folder is all a process (or a container) is given:
// never the CA's key, never another identity's key.
import { randomBytes, X509Certificate } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureDir, run } from './processes.mjs';
import { tlsPaths } from './infra.mjs';

/** The operator tool's identity; every service's identity is its name. */
export const OPS_IDENTITY = 'ops';
export const IDENTITY_URI_PREFIX = 'spiffe://platform/';
const IDENTITY_VALIDITY_DAYS = 7;
const RENEW_BEFORE_EXPIRY_MS = 2 * 24 * 3600 * 1000;

const identitiesDir = (profile) => path.join(tlsPaths(profile).dir, 'identities');

/** Identity `name`'s folder and files: the trusted CA, its certificate and its key. */
export function identityPaths(profile, name) {
  const dir = path.join(identitiesDir(profile), name);
  return {
    dir,
    caFile: path.join(dir, 'ca.crt'),
    certFile: path.join(dir, 'tls.crt'),
    keyFile: path.join(dir, 'tls.key'),
  };
}

/** The stack file's `tls` section: the CA and the files of every identity in `names`. */
export function tlsDescription(profile, names) {
  return {
    caFile: tlsPaths(profile).caFile,
    identities: Object.fromEntries(
      names.map((name) => {
        const { caFile, certFile, keyFile } = identityPaths(profile, name);
        return [name, { caFile, certFile, keyFile }];
      }),
    ),
  };
}

function stillGood(profile, name) {
  const { caFile, certFile, keyFile } = identityPaths(profile, name);
  if (![caFile, certFile, keyFile].every(existsSync)) return false;
  try {
    const stackCa = readFileSync(tlsPaths(profile).caFile);
    if (!readFileSync(caFile).equals(stackCa)) return false;
    const certificate = new X509Certificate(readFileSync(certFile));
    const ca = new X509Certificate(stackCa);
    return (
      certificate.checkIssued(ca) &&
      certificate.verify(ca.publicKey) &&
      certificate.subjectAltName?.includes(`URI:${IDENTITY_URI_PREFIX}${name}`) &&
      Date.parse(certificate.validTo) - Date.now() > RENEW_BEFORE_EXPIRY_MS
    );
  } catch {
    return false;
  }
}

const extensions = (name) =>
  [
    'basicConstraints = critical, CA:FALSE',
    'keyUsage = critical, digitalSignature, keyEncipherment',
    'extendedKeyUsage = serverAuth, clientAuth',
    `subjectAltName = URI:${IDENTITY_URI_PREFIX}${name}, DNS:${name}`,
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid, issuer',
    '',
  ].join('\n');

/** Issues `name`'s certificate into `scratch` (EC P-256 key, 7 days). */
async function issue(profile, name, scratch, logFile) {
  const tls = tlsPaths(profile);
  const file = (suffix) => path.join(scratch, `${name}${suffix}`);
  copyFileSync(tls.caFile, file('-ca.crt'));
  const openssl = (...args) => run('openssl', args, { logFile });
  await openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    file('-key.pem'),
    '-out',
    file('.csr'),
  );
  writeFileSync(file('.ext'), extensions(name));
  await openssl(
    'x509',
    '-req',
    '-sha256',
    '-days',
    String(IDENTITY_VALIDITY_DAYS),
    '-in',
    file('.csr'),
    '-CA',
    tls.caFile,
    '-CAkey',
    tls.caKeyFile,
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    '-extfile',
    file('.ext'),
    '-out',
    file('.pem'),
  );
  chmodSync(file('-key.pem'), 0o600);
}

/**
 * Issues every identity of `names` whose certificate is missing, not from the current
 * CA, or within 2 days of expiry. Resolves to the names issued (empty when all were good).
 */
export async function ensureIdentities(profile, names) {
  const due = names.filter((name) => !stillGood(profile, name));
  if (due.length === 0) return [];
  const scratch = `${identitiesDir(profile)}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  ensureDir(scratch);
  try {
    for (const name of due) await issue(profile, name, scratch, path.join(profile.logsDir, 'tls.log'));
    for (const name of due) {
      const target = identityPaths(profile, name);
      ensureDir(target.dir);
      chmodSync(target.dir, 0o700);
      renameSync(path.join(scratch, `${name}-ca.crt`), target.caFile);
      renameSync(path.join(scratch, `${name}-key.pem`), target.keyFile);
      renameSync(path.join(scratch, `${name}.pem`), target.certFile);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return due;
}

/** A TLS identity's environment for a service: its own folder's files. */
export function identityEnvironment(profile, name) {
  const { caFile, certFile, keyFile } = identityPaths(profile, name);
  return { TLS_CA_FILE: caFile, TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile };
}
