/**
 * Stops and starts the test stack's own infrastructure and services from a
 * fault test, with the same helpers `npm test` uses (scripts/lib/*.mjs), run in
 * a child node process (they are ES modules). The child refuses unless the
 * profile it resolves is the stack this test runs against (TEST_STACK_FILE), so
 * a fault test can never touch another stack's processes.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadTestStack } from './stack';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const INFRA_ACTION_TIMEOUT_MS = 90_000;

type InfraAction =
  | 'stopRedis'
  | 'startRedis'
  | 'stopPostgres'
  | 'startPostgres'
  | 'stopRabbit'
  | 'startRabbit'
  | 'servicePid'
  | 'startServices';

const SCRIPT = `
const [action, argument, expectedStackFile, libUrl] = process.argv.slice(1);
const { loadProfile } = await import(libUrl + '/profiles.mjs');
const infra = await import(libUrl + '/infra.mjs');
const services = await import(libUrl + '/services.mjs');
const profile = loadProfile('test');
if (profile.stackFile !== expectedStackFile) {
  throw new Error('refusing: profile stack ' + profile.stackFile + ' is not the test stack ' + expectedStackFile);
}
if (action === 'servicePid') {
  const [name, replica = '1'] = argument.split(':');
  const service = services.SERVICES.find((candidate) => candidate.name === name);
  const pid = service && services.servicePid(profile, service, Number(replica));
  if (!pid) throw new Error('no running service ' + argument);
  process.stdout.write(String(pid) + '\\n');
} else if (action === 'startServices') {
  const started = await services.startAll(profile);
  await services.waitReady(profile);
  process.stdout.write(started.join(',') + '\\n');
} else {
  process.stdout.write(String(await infra[action](profile)) + '\\n');
}
`;

function runInfra(action: InfraAction, argument = ''): Promise<string> {
  loadTestStack();
  const stackFile = process.env.TEST_STACK_FILE as string;
  const libUrl = pathToFileURL(join(REPO_ROOT, 'scripts', 'lib')).href;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', SCRIPT, action, argument, stackFile, libUrl],
      {
        env: process.env,
        timeout: INFRA_ACTION_TIMEOUT_MS,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${action} ${argument} failed: ${stderr || stdout || error.message}`));
        else resolve(stdout.trim());
      },
    );
  });
}

async function armKill(service: string, replica = 1): Promise<() => number> {
  const pid = Number(await runInfra('servicePid', `${service}:${replica}`));
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`no pid for ${service} replica ${replica}`);
  return () => {
    process.kill(pid, 'SIGKILL');
    return pid;
  };
}

/** The test stack's Redis, PostgreSQL, RabbitMQ and services, stopped, killed and started by fault tests. */
export const stackInfra = {
  stopRedis: () => runInfra('stopRedis'),
  startRedis: () => runInfra('startRedis'),
  stopPostgres: () => runInfra('stopPostgres'),
  startPostgres: () => runInfra('startPostgres'),
  stopRabbit: () => runInfra('stopRabbit'),
  startRabbit: () => runInfra('startRabbit'),
  /** SIGKILL to the stack's instance of `service` (its pid file; replica 1 unless named); resolves to the pid killed. */
  killService: async (service: string, replica = 1) => (await armKill(service, replica))(),
  /**
   * Finds the pid of `service`'s replica `replica` (1 by default) now and returns the kill, so a spec that
   * must kill at a precise moment pays the helper process's start-up (hundreds of ms on a loaded machine)
   * before that moment, not in it.
   */
  armKill,
  /** Starts every stack service not running (as `npm test` did) and waits until all are ready. */
  startServices: () => runInfra('startServices'),
};
