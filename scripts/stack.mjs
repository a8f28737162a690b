#!/usr/bin/env node
// `npm start` / `npm stop` / `npm run status`: the dev stack in .stack/ (PostgreSQL, Redis,
// RabbitMQ, the eight services and a sandbox partner), on one machine, in sandbox mode.
// Node builtins only: this runs before `npm install`.
import path from 'node:path';
import { loadProfile } from './lib/profiles.mjs';
import {
  callerCaFile, ensureDatabases, ensureInfraInstalled, ensureSecrets, ensureTls, infraStatus, prepareStackFolder,
  startPostgres, startRabbit, startRedis, stopInfra, trustedCaFile,
} from './lib/infra.mjs';
import {
  allServicesRunning, DATABASE_NAMES, ensureServiceIdentities, migrateAll, servicesStatus, startAll, stopAll, waitReady, writeStackFile,
} from './lib/services.mjs';
import { ensureSandboxPartner, signingRecipe } from './lib/partner.mjs';
import { acquireLock } from './lib/processes.mjs';
import { StepFailed, step } from './lib/steps.mjs';
import { buildAll, ensureNpmDependencies, ensurePinnedNode } from './lib/workspace.mjs';

const profile = loadProfile('dev');
const log = (name) => path.join(profile.logsDir, name);

async function startInfrastructure() {
  await step('npm dependencies', () => ensureNpmDependencies({ logFile: log('npm.log') }));
  await step('infrastructure installed', () => ensureInfraInstalled({ logFile: log('apt.log') }));
  await step('secrets and TLS', async () => {
    ensureSecrets(profile);
    const tls = await ensureTls(profile);
    const issued = await ensureServiceIdentities(profile);
    // A partner's own CA (NODE_EXTRA_CA_CERTS) is checked and bundled here, before anything starts.
    const trusted = trustedCaFile(profile);
    const done = trusted === tls.caFile ? 'secrets and TLS' : `secrets and TLS (services trust the stack's CA and ${callerCaFile()})`;
    return issued.length > 0 ? `${done}; identity certificates issued: ${issued.join(', ')}` : done;
  });
  await step('postgres started', () => startPostgres(profile));
  await step('redis started', () => startRedis(profile));
  await step('rabbitmq started', () => startRabbit(profile));
  await step('databases ready', async () => {
    const created = await ensureDatabases(profile, DATABASE_NAMES);
    return created.length > 0 ? `databases created: ${created.join(', ')}` : 'databases ready';
  });
}

async function startServices() {
  await step('built', () => buildAll({ logFile: log('build.log') }));
  await step('migrations applied', () => migrateAll(profile));
  await step('services started', async () => {
    const started = await startAll(profile);
    return `services started: ${started.join(', ') || 'none needed'}`;
  });
}

function printWelcome(partner, created) {
  console.log(`
Gateway:              ${partner.baseUrl}
Sandbox partner:      ${partner.partnerId}${created ? ' (new)' : ''}
API key:              ${partner.apiKey}
Signing secret:       ${partner.signingSecret}
KES account:          ${partner.kesAccountId}
USDT deposit address: ${partner.usdtDepositAddress}
Saved in ${path.relative(process.cwd(), profile.partnerFile)}; logs in ${path.relative(process.cwd(), profile.logsDir)}/.

Sign a request (GET /v1/health), in bash:
${signingRecipe(partner)}

Stop with: npm stop`);
}

async function start() {
  prepareStackFolder(profile);
  await startInfrastructure();
  if (allServicesRunning(profile)) {
    // Already up: skip build and migrations; `npm stop` first to run new code.
    console.log('✔ services already running (npm stop, then npm start, to pick up changes)');
  } else {
    await startServices();
  }
  await step('services ready', () => waitReady(profile));
  writeStackFile(profile);
  const { partner, created } = await step('sandbox partner ready', () => ensureSandboxPartner(profile));
  printWelcome(partner, created);
}

async function stop() {
  await step('services stopped', async () => {
    const stopped = await stopAll(profile);
    return stopped.length === 0 ? 'no services were running' : `services stopped: ${stopped.map((s) => s.name).join(', ')}`;
  });
  await step('infrastructure stopped', async () => (await stopInfra(profile)).join('; '));
}

async function status() {
  const infra = await infraStatus(profile);
  for (const [name, state] of Object.entries(infra)) {
    console.log(`${state.running ? '●' : '○'} ${name.padEnd(17)} port ${state.port}${state.pid ? `  pid ${state.pid}` : ''}`);
  }
  for (const service of servicesStatus(profile)) {
    console.log(`${service.running ? '●' : '○'} ${service.name.padEnd(17)} ${service.grpc}  ${service.metrics}${service.pid ? `  pid ${service.pid}` : ''}`);
  }
  console.log(`gateway: ${profile.gatewayUrl}`);
}

const COMMANDS = { start, stop, status };

async function main() {
  const command = COMMANDS[process.argv[2]];
  if (!command) {
    console.error('usage: node scripts/stack.mjs start|stop|status');
    return 2;
  }
  let releaseLock = () => {};
  try {
    if (command === start) {
      // The rest runs on the pinned Node: a process started on another installs it and waits.
      prepareStackFolder(profile);
      await ensurePinnedNode({ logFile: log('npm.log') });
    }
    // start and stop must not interleave; status only reads.
    if (command !== status) releaseLock = acquireLock(path.join(profile.stackDir, 'stack.lock'), 'npm start/stop');
    await command();
    return 0;
  } catch (error) {
    if (!(error instanceof StepFailed)) console.error(`✘ ${error.message}`);
    if (command === start) console.error('What did start is left running for a look: npm run status; npm stop stops it.');
    return 1;
  } finally {
    releaseLock();
  }
}

// Exit explicitly: the gRPC health client can keep idle channels open.
process.exit(await main());
