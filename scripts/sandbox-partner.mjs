#!/usr/bin/env node
// `docker compose up`'s one-shot `sandbox-partner` service (the compose file mounts this
// script and scripts/lib into the ops tool's image): once the gateway is healthy, it makes
// sure a sandbox partner exists (the one saved in the volume when the gateway still accepts
// its credentials, else a new one, created with `ops partner create`), prints its
// credentials and writes them to the volume, as `npm start` does to .stack/partner.json.
//   SANDBOX_GATEWAY_URL   where the gateway answers on the compose network (http://gateway:8080)
//   SANDBOX_PUBLIC_URL    where partners reach it from the host, written as baseUrl (http://127.0.0.1:8080)
//   SANDBOX_PARTNER_FILE  the file in the volume (/home/node/partner.json)
// The ops tool finds the services by their <SERVICE>_GRPC_ADDR variables and calls them
// over mutual TLS as the ops identity (TLS_CA_FILE, TLS_CERT_FILE, TLS_KEY_FILE).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSandboxPartner, signingRecipe } from './lib/partner.mjs';

function required(name) {
  const value = process.env[name]?.trim();
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main() {
  const profile = {
    repoRoot: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
    gatewayUrl: required('SANDBOX_GATEWAY_URL'),
    publicUrl: required('SANDBOX_PUBLIC_URL'),
    partnerFile: required('SANDBOX_PARTNER_FILE'),
    // No stack file in a container: the ops tool takes every address from the environment.
    stackFile: '/nonexistent/stack.json',
  };
  const { partner, created } = await ensureSandboxPartner(profile);
  console.log(
    `Sandbox partner ${partner.partnerId}${created ? ' (new)' : ''}, saved in the volume at ${profile.partnerFile}:`,
  );
  console.log(JSON.stringify(partner, null, 2));
  console.log(`\nSign a request (GET /v1/health), in bash on the host:\n${signingRecipe(partner)}`);
}

main().catch((error) => {
  console.error(`sandbox partner not ready: ${error.message}`);
  process.exit(1);
});
