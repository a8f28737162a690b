// The npm workspace: dependencies and the turbo build, which reports each package as it
// is built (`✔ @platform/errors built (3.1 s)`), so a first build of a few minutes is
// never silent.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './profiles.mjs';
import { ensureDir, LoggedError, run } from './processes.mjs';
import { continueOnPinnedNode, onPinnedNode } from './runtime.mjs';
import { step, stepProgress } from './steps.mjs';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const BUILD_TIMEOUT_MS = 15 * 60_000;

// turbo asks to send telemetry on first use; nothing leaves this machine.
const TOOL_ENV = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };

const mtimeMs = (file) => statSync(file).mtimeMs;

/** Why dependencies must be installed, or null when node_modules matches the lockfile. */
function installReason() {
  const lockfile = path.join(REPO_ROOT, 'package-lock.json');
  const installed = path.join(REPO_ROOT, 'node_modules', '.package-lock.json');
  if (!existsSync(lockfile)) return 'no package-lock.json';
  if (!existsSync(installed)) return 'node_modules missing';
  if (mtimeMs(lockfile) > mtimeMs(installed)) return 'package-lock.json changed';
  return null;
}

/**
 * Installs when node_modules is missing or older than the lockfile, with `npm ci`: exactly
 * what package-lock.json lists (it lists every platform's optional builds of @swc/core and
 * turbo, so it is complete here too), never a changed lockfile.
 */
export async function ensureNpmDependencies({ logFile }) {
  const reason = installReason();
  if (!reason) return 'npm dependencies up to date';
  await run('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: REPO_ROOT,
    env: TOOL_ENV,
    logFile,
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  return `npm ci done (${reason})`;
}

/**
 * Started on another Node than the pinned one (scripts/lib/runtime.mjs): the dependencies
 * installed (the pinned Node is one of them), then this script again on that Node; this
 * process then only waits for it. Returns at once on the pinned Node.
 */
export async function ensurePinnedNode({ logFile }) {
  if (onPinnedNode()) return;
  await step('npm dependencies', () => ensureNpmDependencies({ logFile }));
  await continueOnPinnedNode();
}

const PLAN_TIMEOUT_MS = 2 * 60_000;
const NO_COMMAND = '<NONEXISTENT>';
/** `@platform/gateway-service:build: …`: the package and task of a line of turbo's output. */
const TASK_LINE = /^(@?[^\s:]+):([a-z:-]+): /;

/** The build's tasks that run a command: their ids, dependencies and whether turbo's cache holds them. */
async function buildPlan(logFile, filterArgs) {
  const { stdout } = await run('npx', ['turbo', 'run', 'build', ...filterArgs, '--dry-run=json'], {
    cwd: REPO_ROOT,
    env: TOOL_ENV,
    timeoutMs: PLAN_TIMEOUT_MS,
  });
  const plan = JSON.parse(stdout.slice(stdout.indexOf('{')));
  const tasks = new Map();
  for (const task of plan.tasks) {
    if (task.command === NO_COMMAND) continue;
    tasks.set(task.taskId, { dependencies: task.dependencies ?? [], cached: task.cache?.status === 'HIT' });
  }
  if (tasks.size === 0) throw new LoggedError('turbo planned no build task', logFile);
  return tasks;
}

/**
 * Follows turbo's output, grouped by task: a task's lines arrive together when it ends.
 * The time shown is from when its last dependency ended (or the build began) to its own end.
 */
function progressReporter(tasks, startedAtMs) {
  const endedAtMs = new Map();
  let done = 0;
  return (line) => {
    const match = TASK_LINE.exec(line);
    if (!match) return;
    const taskId = `${match[1]}#${match[2]}`;
    const task = tasks.get(taskId);
    if (!task || endedAtMs.has(taskId)) return;
    const now = Date.now();
    endedAtMs.set(taskId, now);
    done += 1;
    const readyAtMs = Math.max(
      startedAtMs,
      ...task.dependencies.map((dependency) => endedAtMs.get(dependency) ?? startedAtMs),
    );
    const name = match[2] === 'build' ? match[1] : `${match[1]} ${match[2]}`;
    const what = task.cached
      ? 'from cache'
      : `${match[2] === 'build' ? 'built' : 'done'} in ${((now - readyAtMs) / 1000).toFixed(1)} s`;
    stepProgress(`[${String(done).padStart(String(tasks.size).length)}/${tasks.size}] ${name} ${what}`);
  };
}

/** Runs turbo with its output grouped by task, into the log and through `onLine`. */
function runTurboBuild(logFile, filterArgs, onLine) {
  ensureDir(path.dirname(logFile));
  const log = createWriteStream(logFile, { flags: 'a' });
  const args = ['turbo', 'run', 'build', ...filterArgs, '--log-order=grouped'];
  log.write(`\n$ npx ${args.join(' ')}    # ${new Date().toISOString()}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn('npx', args, { cwd: REPO_ROOT, env: TOOL_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    const take = (chunk) => {
      log.write(chunk);
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop();
      lines.forEach(onLine);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
    const finish = (error) => {
      clearTimeout(timer);
      log.end(() => (error ? reject(error) : resolve()));
    };
    child.on('error', (error) => finish(new LoggedError(`turbo: ${error.message}`, logFile)));
    child.on('close', (code, signalName) => {
      if (code === 0) return finish();
      finish(
        new LoggedError(
          `turbo run build failed (${signalName ? `signal ${signalName}` : `exit code ${code}`})`,
          logFile,
        ),
      );
    });
  });
}

/**
 * Builds every workspace with turbo, one progress line per package as it is done;
 * with `only` (a package name), that package and what it depends on, nothing else.
 */
export async function buildAll({ logFile, only }) {
  const filterArgs = only ? [`--filter=${only}`] : [];
  const tasks = await buildPlan(logFile, filterArgs);
  const built = [...tasks.values()].filter((task) => !task.cached).length;
  await runTurboBuild(logFile, filterArgs, progressReporter(tasks, Date.now()));
  return built === 0 ? `built (all ${tasks.size} from cache)` : `built (${built} of ${tasks.size} packages compiled)`;
}
