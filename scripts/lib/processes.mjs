// Small process, file and socket helpers shared by the stack scripts. Node builtins only:
// these run before `npm install`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const POLL_INTERVAL_MS = 200;
const PORT_PROBE_TIMEOUT_MS = 1_000;
const STOP_GRACE_MS_DEFAULT = 10_000;
const KILL_WAIT_MS = 5_000;

/** An error that names the log file a reader should open. */
export class LoggedError extends Error {
  constructor(message, logFile) {
    super(message);
    this.logFile = logFile;
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

export function ensureDir(dir) {
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes (then throws). */
export async function waitFor(check, { timeoutMs, intervalMs = POLL_INTERVAL_MS, what, logFile }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() >= deadline) {
      throw new LoggedError(`${what}: not ready after ${timeoutMs / 1000} s`, logFile);
    }
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------- PIDs and /proc

export function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch (error) {
    return error.code === 'EPERM';
  }
}

// A zombie answers kill(0) but is already dead; it only waits for its parent to reap it.
function isZombie(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

export function readPidFile(file) {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim().split('\n')[0], 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function writePidFile(file, pid) {
  ensureDir(path.dirname(file));
  writeFileSync(file, `${pid}\n`);
}

export function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** True when `pid` is alive and its command line contains `marker` (guards against PID reuse). */
export function isOurProcess(pid, marker) {
  return isAlive(pid) && commandLine(pid).includes(marker);
}

/** True when `pid` is alive and its environment holds `envEntry` ("NAME=value"). */
export function processHasEnvironment(pid, envEntry) {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(envEntry);
  } catch {
    return false;
  }
}

/** PIDs whose executable name is `comm` and whose environment holds `envEntry` ("NAME=value"). */
export function findProcesses({ comm, envEntry }) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== comm) continue;
      if (processHasEnvironment(Number(entry), envEntry)) found.push(Number(entry));
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return found;
}

export async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(POLL_INTERVAL_MS / 2);
  }
  return true;
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch (error) {
    if (error.code !== 'ESRCH') throw error;
  }
}

/** SIGTERM, wait up to `graceMs`, then SIGKILL. Resolves to 'stopped', 'killed' or 'not running'. */
export async function stopPid(pid, { graceMs = STOP_GRACE_MS_DEFAULT } = {}) {
  if (!isAlive(pid)) return 'not running';
  signal(pid, 'SIGTERM');
  if (await waitForExit(pid, graceMs)) return 'stopped';
  signal(pid, 'SIGKILL');
  if (await waitForExit(pid, KILL_WAIT_MS)) return 'killed';
  throw new Error(`process ${pid} survived SIGKILL`);
}

/**
 * Takes `file` as a lock for this process (stale locks of dead processes are taken over).
 * Returns a release function; throws naming the holder when another live process has it.
 */
export function acquireLock(file, what) {
  ensureDir(path.dirname(file));
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return () => readPidFile(file) === process.pid && removeFile(file);
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = readPidFile(file);
    if (holder && holder !== process.pid && isAlive(holder)) {
      throw new Error(`${what} is already running in this checkout (pid ${holder})`);
    }
    removeFile(file);
  }
  throw new Error(`could not take the lock ${file}`);
}

// ---------------------------------------------------------------- running commands

/**
 * Runs a command to completion. With `logFile`, stdout and stderr are appended there and a
 * failure names it; without, output is captured and returned (and included in the error).
 */
export function run(command, args, { cwd, env, logFile, input, timeoutMs } = {}) {
  return new Promise((resolve, reject) => {
    let logFd;
    if (logFile) {
      ensureDir(path.dirname(logFile));
      logFd = openSync(logFile, 'a');
      writeFileSync(logFd, `\n$ ${[command, ...args].join(' ')}    # ${new Date().toISOString()}\n`);
    }
    const stdio = [input === undefined ? 'ignore' : 'pipe', logFd ?? 'pipe', logFd ?? 'pipe'];
    const child = spawn(command, args, { cwd, env, stdio });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => (stdout += chunk));
    child.stderr?.on('data', (chunk) => (stderr += chunk));
    if (input !== undefined) child.stdin.end(input);
    let timedOut = false;
    const timer =
      timeoutMs &&
      setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
    // A child that cannot start emits 'error' and then 'close': the first settles the run, and
    // the log file is closed once (a second close would throw EBADF out of the event handler).
    let finished = false;
    const finish = (error) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (logFd !== undefined) closeSync(logFd);
      if (error) reject(error);
      else resolve({ stdout, stderr });
    };
    child.on('error', (error) => finish(new LoggedError(`${command}: ${error.message}`, logFile)));
    child.on('close', (code, signalName) => {
      if (code === 0) return finish();
      const detail = logFile ? '' : `\n${stderr.trim() || stdout.trim()}`;
      const status = timedOut
        ? `killed after ${timeoutMs / 1000} s`
        : signalName
          ? `signal ${signalName}`
          : `exit code ${code}`;
      finish(new LoggedError(`${path.basename(command)} ${args[0] ?? ''} failed (${status})${detail}`, logFile));
    });
  });
}

/** True when `command` is an absolute path that exists or a name found on PATH. */
export function commandExists(command) {
  if (path.isAbsolute(command)) return existsSync(command);
  const dirs = (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin', '/usr/bin']);
  return dirs.some((dir) => dir && existsSync(path.join(dir, command)));
}

// ---------------------------------------------------------------- sockets

/** Connects to 127.0.0.1:port; true when something accepts the connection. */
export function isPortOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (open) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(PORT_PROBE_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Sends `request` and resolves with the first chunk answered (or null on error/timeout). */
export function exchange(port, request, timeoutMs = PORT_PROBE_TIMEOUT_MS) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(null));
    socket.once('connect', () => socket.write(request));
    socket.once('data', (chunk) => done(chunk));
    socket.once('error', () => done(null));
    socket.once('end', () => done(null));
  });
}

export async function assertPortFree(port, what) {
  if (await isPortOpen(port)) {
    throw new Error(`${what}: port ${port} is already taken by another process (not ours)`);
  }
}

// ---------------------------------------------------------------- files

export function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

export function writeJson(file, value, mode = 0o644) {
  ensureDir(path.dirname(file));
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode });
}

export function removeFile(file) {
  rmSync(file, { force: true });
}

export function tailLines(file, count) {
  try {
    const lines = readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
    return lines.slice(-count);
  } catch {
    return [];
  }
}
