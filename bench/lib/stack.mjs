// The stack a bench run measures: its own test-profile stack in slot BENCH_STACK_SLOT
// (built, started, stopped after), or a started one named by BENCH_STACK_FILE. Also the
// processes whose CPU and memory it reads, and the ops tool.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadProfile, REPO_ROOT } from '../../scripts/lib/profiles.mjs';
import * as infra from '../../scripts/lib/infra.mjs';
import * as services from '../../scripts/lib/services.mjs';
import { rabbitPid } from '../../scripts/lib/rabbitmq.mjs';
import { redisPid } from '../../scripts/lib/redis.mjs';
import { acquireLock } from '../../scripts/lib/processes.mjs';
import { step } from '../../scripts/lib/steps.mjs';
import { buildAll } from '../../scripts/lib/workspace.mjs';

const OPS_TIMEOUT_MS = 60_000;

/** Builds and starts a test-profile stack in `profile`'s slot with fresh databases; stop() undoes it. */
async function ownStack(profile) {
  const releaseLock = acquireLock(path.join(profile.stackDir, 'test.lock'), 'bench');
  infra.prepareStackFolder(profile);
  const log = (name) => path.join(profile.logsDir, name);
  const stop = async () => {
    await services.stopAll(profile).catch(() => {});
    await infra.stopInfra(profile).catch(() => {});
    releaseLock();
  };
  try {
    await step('infrastructure installed', () => infra.ensureInfraInstalled({ logFile: log('apt.log') }));
    await step('built', () => buildAll({ logFile: log('build.log') }));
    await step('secrets and TLS', async () => {
      infra.ensureSecrets(profile);
      await infra.ensureTls(profile);
      await services.ensureServiceIdentities(profile);
    });
    await step('postgres started', () => infra.startPostgres(profile));
    await step('redis started', () => infra.startRedis(profile));
    await step('rabbitmq started', () => infra.startRabbit(profile));
    await step('databases recreated', () =>
      infra.ensureDatabases(profile, services.DATABASE_NAMES, { recreate: true }),
    );
    await step('migrations applied', () => services.migrateAll(profile));
    await step('services started', async () => `services started: ${(await services.startAll(profile)).join(', ')}`);
    await step('services ready', () => services.waitReady(profile));
    services.writeStackFile(profile);
  } catch (error) {
    await stop();
    throw error;
  }
  return { profile, stackFile: profile.stackFile, stop, own: true };
}

/** The profile a stack.json was written for (its slot read from the folder name). */
function profileOf(description) {
  if (description.profile === 'dev') return loadProfile('dev');
  const slot = path.basename(description.stackDir).match(/^\.stack-test-(\d)$/)?.[1];
  return loadProfile('test', { ...process.env, TEST_STACK_SLOT: slot ?? '' });
}

/** The stack to measure: BENCH_STACK_FILE's, or one of our own in `profile`'s slot. */
export async function openStack(profile) {
  const file = process.env.BENCH_STACK_FILE;
  const stack = file ? await externalStack(file) : await ownStack(profile);
  return { ...stack, description: JSON.parse(readFileSync(stack.stackFile, 'utf8')) };
}

async function externalStack(file) {
  if (!existsSync(file)) throw new Error(`BENCH_STACK_FILE ${file} does not exist`);
  const stackFile = path.resolve(file);
  return {
    profile: profileOf(JSON.parse(readFileSync(stackFile, 'utf8'))),
    stackFile,
    stop: async () => {},
    own: false,
  };
}

/**
 * The root pid of every process the stack runs: each service, the PostgreSQL postmaster
 * (its backends are its children), the RabbitMQ node (beam) and Redis. Null when not running.
 */
export async function stackProcesses(profile) {
  const pids = Object.fromEntries(
    services.SERVICES.map((service) => [service.name, services.servicePid(profile, service)]),
  );
  const status = await infra.infraStatus(profile);
  return { ...pids, postgresql: status.postgres.pid, rabbitmq: rabbitPid(profile), redis: redisPid(profile) };
}

/**
 * `ops <args> --json` against the stack; resolves to its parsed output. A command that
 * reports a failed check by its exit status (ledger check) may list that status in `exitCodes`.
 */
export function runOps(stackFile, args, { exitCodes = [0], timeoutMs = OPS_TIMEOUT_MS } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'tools/ops/dist/main.js'), ...args, '--json'],
      {
        env: { ...process.env, OPS_STACK_FILE: stackFile },
        timeout: timeoutMs,
      },
      (error, stdout, stderr) => {
        const code = error ? error.code : 0;
        if (!exitCodes.includes(code))
          reject(new Error(`ops ${args.slice(0, 2).join(' ')}: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout));
      },
    );
  });
}

export { services };
