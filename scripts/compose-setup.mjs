#!/usr/bin/env node
// `npm run compose:tls`: the identity certificates docker-compose.yml mounts, in
// .compose/tls/: a local CA and one 7-day certificate per service and for the ops tool,
// each naming spiffe://platform/<name>, in a folder of its own (ca.crt, tls.crt,
// tls.key) that only that container mounts. Run it before the first `docker compose up`,
// and again within the week to renew them: running containers take the new files
// without a restart. Node builtins and the openssl CLI only.
import { chownSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ensureTls } from './lib/infra.mjs';
import { REPO_ROOT } from './lib/profiles.mjs';
import { ensureDir, isRoot } from './lib/processes.mjs';
import { ensureServiceIdentities } from './lib/services.mjs';

/** The containers run as the image's `node` user (Dockerfile). */
const CONTAINER_UID = 1000;

const composeDir = path.join(REPO_ROOT, '.compose');
const target = { tlsDir: path.join(composeDir, 'tls'), logsDir: path.join(composeDir, 'logs') };

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
console.log(issued.length > 0 ? `issued: ${issued.join(', ')} (in ${path.relative(process.cwd(), target.tlsDir)})` : 'every identity certificate is current');
