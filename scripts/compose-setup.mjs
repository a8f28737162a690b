#!/usr/bin/env node
// `npm run compose:setup`: what docker-compose.yml needs before `docker compose up`, made
// on this machine and never committed. Node builtins and the openssl CLI only.
//
// - Keys: docker-compose.yml has no default for any key and refuses to start without
//   them. Each one missing from `.env` (and from the environment, which compose prefers)
//   is written there as 32 fresh random bytes in hex, the file readable by its owner only.
//   Keys already set are never replaced: the sealed data depends on them.
// - Identities: a local CA and one 7-day certificate per service and for the ops tool, in
//   .compose/tls/, each naming spiffe://platform/<name>, in a folder of its own (ca.crt,
//   tls.crt, tls.key) that only that container mounts. Run the command again within the
//   week to renew them: running containers take the new files without a restart.
//
// COMPOSE_SETUP_DIR writes both somewhere else than next to docker-compose.yml (tests).
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureTls } from './lib/infra.mjs';
import { REPO_ROOT } from './lib/profiles.mjs';
import { ensureDir, isRoot } from './lib/processes.mjs';
import { ensureServiceIdentities } from './lib/services.mjs';

/** The containers run as the image's `node` user (Dockerfile). */
const CONTAINER_UID = 1000;
/** Every `${NAME:?}` key of docker-compose.yml (tools/deploy-check proves the list complete). */
const COMPOSE_KEYS = [
  'CREDENTIAL_ENCRYPTION_KEY',
  'WEBHOOK_SECRET_ENCRYPTION_KEY',
  'CODE_HASH_KEY',
  'PAYOUTS_CODE_HASH_KEY',
];
const KEY_BYTES = 32;

const projectDir = path.resolve(process.env.COMPOSE_SETUP_DIR?.trim() || REPO_ROOT);
const composeDir = path.join(projectDir, '.compose');
const target = { tlsDir: path.join(composeDir, 'tls'), logsDir: path.join(composeDir, 'logs') };

/** The names `.env` sets (NAME=value lines; comments and blanks skipped). */
function namesIn(envFile) {
  if (!existsSync(envFile)) return new Set();
  return new Set(
    readFileSync(envFile, 'utf8')
      .split('\n')
      .map((line) => /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1])
      .filter(Boolean),
  );
}

/** Appends a fresh key for each key neither `.env` nor the environment sets; resolves to their names. */
function ensureKeys() {
  const envFile = path.join(projectDir, '.env');
  const present = namesIn(envFile);
  const missing = COMPOSE_KEYS.filter((name) => !present.has(name) && !process.env[name]?.trim());
  if (missing.length > 0) {
    const before = existsSync(envFile) ? readFileSync(envFile, 'utf8') : '';
    const separator = before === '' || before.endsWith('\n') ? '' : '\n';
    const lines = missing.map((name) => `${name}=${randomBytes(KEY_BYTES).toString('hex')}`);
    writeFileSync(envFile, `${before}${separator}${lines.join('\n')}\n`, { mode: 0o600 });
  }
  if (existsSync(envFile)) chmodSync(envFile, 0o600);
  return missing;
}

const keys = ensureKeys();
ensureDir(target.logsDir);
await ensureTls(target);
const issued = await ensureServiceIdentities(target);
// Bind mounts keep the host's owner: hand each identity folder to the containers' user
// (the CA's own key stays root's, outside every mount).
if (isRoot()) {
  const identities = path.join(target.tlsDir, 'identities');
  for (const name of readdirSync(identities)) {
    const dir = path.join(identities, name);
    chownSync(dir, CONTAINER_UID, CONTAINER_UID);
    for (const file of readdirSync(dir)) chownSync(path.join(dir, file), CONTAINER_UID, CONTAINER_UID);
  }
}
console.log(keys.length > 0 ? `keys written to .env: ${keys.join(', ')}` : 'every key is set');
console.log(
  issued.length > 0
    ? `identity certificates issued: ${issued.join(', ')} (in ${path.relative(process.cwd(), target.tlsDir) || '.'})`
    : 'every identity certificate is current',
);
