#!/usr/bin/env node
// `npm start` / `npm stop` / `npm run status [-- --json]` / `npm run restart -- <service>`: the dev
// stack in .stack/ (PostgreSQL, Redis, RabbitMQ, the eight services and a sandbox partner), on one
// machine, in sandbox mode. STACK_REPLICAS=N (default 1) runs N replicas of every service.
// STACK_PROFILE=test (with TEST_STACK_SLOT) points status, restart and stop at a test stack instead.
// Node builtins only: this runs before `npm install`.
import path from 'node:path';
import { loadProfile } from './lib/profiles.mjs';
import {
  callerCaFile,
  ensureDatabases,
  ensureInfraInstalled,
  ensureSecrets,
  ensureTls,
  infraStatus,
  prepareStackFolder,
  startPostgres,
  startRabbit,
  startRedis,
  stopInfra,
  trustedCaFile,
} from './lib/infra.mjs';
import {
  allServicesRunning,
  DATABASE_NAMES,
  ensureServiceIdentities,
  migrateAll,
  migrateService,
  restartService,
  serviceNamed,
  servicesStatus,
  startAll,
  stopAll,
  waitReady,
  writeStackFile,
} from './lib/services.mjs';
import { ensureSandboxPartner, signingRecipe } from './lib/partner.mjs';
import { acquireLock, readJson } from './lib/processes.mjs';
import { StepFailed, step } from './lib/steps.mjs';
import { buildAll, ensureNpmDependencies, ensurePinnedNode } from './lib/workspace.mjs';

/**
 * The dev profile, with as many replicas as the running stack has (stack.json) unless
 * STACK_REPLICAS says otherwise: `npm run restart` and `npm run status` need no
 * STACK_REPLICAS of their own, and a restarted replica is given every peer replica.
 */
function stackProfile() {
  const name = process.env.STACK_PROFILE ?? 'dev';
  const requested = loadProfile(name);
  const described = readJson(requested.stackFile)?.replicas;
  const running = described ? Math.max(...Object.values(described).map((replicas) => replicas.length)) : null;
  if (!running || running === requested.replicas) return { profile: requested, running };
  if (process.env.STACK_REPLICAS) return { profile: requested, running };
  return { profile: loadProfile(name, { ...process.env, STACK_REPLICAS: String(running) }), running };
}

const { profile, running: runningReplicas } = stackProfile();
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
    const done =
      trusted === tls.caFile
        ? 'secrets and TLS'
        : `secrets and TLS (services trust the stack's CA and ${callerCaFile()})`;
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
  if (runningReplicas && runningReplicas !== profile.replicas) {
    throw new Error(
      `the stack runs ${runningReplicas} replicas of every service: npm stop first to run ${profile.replicas}`,
    );
  }
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
    return stopped.length === 0
      ? 'no services were running'
      : `services stopped: ${stopped.map((s) => s.name).join(', ')}`;
  });
  await step('infrastructure stopped', async () => (await stopInfra(profile)).join('; '));
}

async function status(args) {
  const infra = await infraStatus(profile);
  const services = servicesStatus(profile);
  if (args.includes('--json')) {
    // Each service's replicas: number, pid (null when not running), gRPC address and metrics endpoint.
    const replicas = Object.fromEntries(services.map((service) => [service.name, service.replicas]));
    console.log(JSON.stringify({ infrastructure: infra, gatewayUrl: profile.gatewayUrl, services: replicas }, null, 2));
    return;
  }
  for (const [name, state] of Object.entries(infra)) {
    console.log(
      `${state.running ? '●' : '○'} ${name.padEnd(17)} port ${state.port}${state.pid ? `  pid ${state.pid}` : ''}`,
    );
  }
  for (const service of services) {
    for (const replica of service.replicas) {
      const name = replica.replica === 1 ? service.name : `${service.name}-${replica.replica}`;
      console.log(
        `${replica.running ? '●' : '○'} ${name.padEnd(17)} ${replica.grpc}  ${replica.metrics}${replica.pid ? `  pid ${replica.pid}` : ''}`,
      );
    }
  }
  console.log(`gateway: ${profile.gatewayUrl}`);
}

/**
 * One service's new code, replica after replica: builds that service (and the libraries
 * it uses) only, applies its own migrations only, then restarts its replicas one at a
 * time, each drained first and the next only once the new one is ready.
 */
async function restart(args) {
  const service = serviceNamed(args[0] ?? '');
  await step('built', () => buildAll({ logFile: log('build.log'), only: `@platform/${service.name}-service` }));
  await step('migrations applied', async () => {
    await migrateService(profile, service);
    return `${service.name} migrations applied`;
  });
  await step('replicas restarted', async () => `restarted: ${(await restartService(profile, service)).join('; ')}`);
}

const COMMANDS = { start, stop, status, restart };
const USAGE = 'usage: node scripts/stack.mjs start|stop|status [--json]|restart <service>';

async function main() {
  const command = COMMANDS[process.argv[2]];
  const args = process.argv.slice(3);
  if (!command || (command === restart && args.length !== 1)) {
    console.error(USAGE);
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
    await command(args);
    return 0;
  } catch (error) {
    if (!(error instanceof StepFailed)) console.error(`✘ ${error.message}`);
    if (command === start)
      console.error('What did start is left running for a look: npm run status; npm stop stops it.');
    return 1;
  } finally {
    releaseLock();
  }
}

// Exit explicitly: the gRPC health client can keep idle channels open.
process.exit(await main());
