// RabbitMQ 3.10 for one stack. Debian's /usr/sbin wrapper switches user and logs to
// /var/log, so we run the script in /usr/lib/rabbitmq/bin directly with every path, port
// and name given by environment; HOME points into the stack so the Erlang cookie is ours.
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  assertPortFree,
  ensureDir,
  exchange,
  findProcesses,
  isAlive,
  isOurProcess,
  LoggedError,
  processHasEnvironment,
  readPidFile,
  removeFile,
  sleep,
  stopPid,
  writePidFile,
} from './processes.mjs';

export const RABBITMQ_SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';
const RABBIT_READY_TIMEOUT_MS = 60_000;
const RABBIT_POLL_INTERVAL_MS = 250;
const RABBIT_STOP_GRACE_MS = 30_000;
const EPMD_STOP_GRACE_MS = 5_000;
export const RABBIT_USER = 'platform';
export const RABBIT_PASSWORD = 'platform';

// AMQP 0-9-1 protocol header; a broker that is ready answers with Connection.Start:
// frame type 1 (method), channel 0, then class 10 / method 10 after the 4-byte size.
const AMQP_PROTOCOL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0x00, 0x00, 0x09, 0x01]);
const FRAME_TYPE_METHOD = 1;
const CONNECTION_CLASS_ID = 10;
const CONNECTION_START_METHOD_ID = 10;

export function rabbitPaths(profile) {
  const base = path.join(profile.stackDir, 'rabbitmq');
  return {
    base,
    home: path.join(base, 'home'),
    mnesiaBase: path.join(base, 'mnesia'),
    configFile: path.join(base, 'rabbitmq.conf'),
    enabledPluginsFile: path.join(base, 'enabled_plugins'),
    // An empty env file of our own, so /etc/rabbitmq/rabbitmq-env.conf cannot change the node.
    confEnvFile: path.join(base, 'rabbitmq-env.conf'),
    advancedConfigFile: path.join(base, 'advanced.config'),
    logBase: path.join(profile.logsDir, 'rabbitmq'),
    consoleLogFile: path.join(profile.logsDir, 'rabbitmq', 'console.log'),
    pidFile: path.join(profile.pidsDir, 'rabbitmq.pid'),
    wrapperPidFile: path.join(profile.pidsDir, 'rabbitmq-wrapper.pid'),
    epmdPidFile: path.join(profile.pidsDir, 'epmd.pid'),
  };
}

/** True when the broker on `port` answers the AMQP protocol header with Connection.Start. */
export async function amqpAnswers(port) {
  const frame = await exchange(port, AMQP_PROTOCOL_HEADER);
  if (!frame || frame.length < 11 || frame[0] !== FRAME_TYPE_METHOD) return false;
  return frame.readUInt16BE(7) === CONNECTION_CLASS_ID && frame.readUInt16BE(9) === CONNECTION_START_METHOD_ID;
}

function writeConfiguration(profile, rabbit) {
  for (const dir of [rabbit.base, rabbit.home, rabbit.mnesiaBase, rabbit.logBase, profile.pidsDir]) ensureDir(dir);
  writeFileSync(
    rabbit.configFile,
    [
      `default_user = ${RABBIT_USER}`,
      `default_pass = ${RABBIT_PASSWORD}`,
      'loopback_users = none',
      `listeners.tcp.default = 127.0.0.1:${profile.ports.amqp}`,
      '',
    ].join('\n'),
  );
  writeFileSync(rabbit.enabledPluginsFile, '[].\n');
  writeFileSync(rabbit.confEnvFile, '# Intentionally empty: the stack scripts set everything by environment.\n');
}

function rabbitEnvironment(profile, rabbit) {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: rabbit.home,
    RABBITMQ_NODENAME: profile.rabbitNodeName,
    RABBITMQ_NODE_PORT: String(profile.ports.amqp),
    RABBITMQ_DIST_PORT: String(profile.ports.rabbitDistribution),
    ERL_EPMD_PORT: String(profile.ports.epmd),
    ERL_EPMD_ADDRESS: '127.0.0.1',
    RABBITMQ_MNESIA_BASE: rabbit.mnesiaBase,
    RABBITMQ_LOG_BASE: rabbit.logBase,
    RABBITMQ_PID_FILE: rabbit.pidFile,
    RABBITMQ_ENABLED_PLUGINS_FILE: rabbit.enabledPluginsFile,
    RABBITMQ_CONFIG_FILE: rabbit.configFile,
    RABBITMQ_ADVANCED_CONFIG_FILE: rabbit.advancedConfigFile,
    RABBITMQ_CONF_ENV_FILE: rabbit.confEnvFile,
    // Erlang distribution (for rabbitmqctl) listens on loopback only, like everything else.
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
  };
}

// Our processes carry the node name in their environment; the check guards against PID reuse.
const isOurNode = (profile, pid) => pid && processHasEnvironment(pid, `RABBITMQ_NODENAME=${profile.rabbitNodeName}`);

/** The Erlang VM's PID (written by the node itself), or null when it does not run. */
export function rabbitPid(profile) {
  const pid = readPidFile(rabbitPaths(profile).pidFile);
  return isOurNode(profile, pid) ? pid : null;
}

/** epmd daemons started for this stack: found by their port in their environment. */
export function epmdPids(profile) {
  const recorded = readPidFile(rabbitPaths(profile).epmdPidFile);
  const found = findProcesses({ comm: 'epmd', envEntry: `ERL_EPMD_PORT=${profile.ports.epmd}` });
  const ourEpmd = (pid) =>
    pid && isOurProcess(pid, 'epmd') && processHasEnvironment(pid, `ERL_EPMD_PORT=${profile.ports.epmd}`);
  return [...new Set([recorded, ...found])].filter(ourEpmd);
}

function spawnBroker(profile, rabbit) {
  const consoleFd = openSync(rabbit.consoleLogFile, 'a');
  const child = spawn(RABBITMQ_SERVER, [], {
    cwd: rabbit.base,
    env: rabbitEnvironment(profile, rabbit),
    detached: true,
    stdio: ['ignore', consoleFd, consoleFd],
  });
  closeSync(consoleFd);
  child.unref();
  writePidFile(rabbit.wrapperPidFile, child.pid);
  return child.pid;
}

async function waitForBroker(profile, rabbit, wrapperPid) {
  const deadline = Date.now() + RABBIT_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await amqpAnswers(profile.ports.amqp)) return;
    if (!isAlive(wrapperPid)) throw new LoggedError('rabbitmq exited during start', rabbit.consoleLogFile);
    await sleep(RABBIT_POLL_INTERVAL_MS);
  }
  throw new LoggedError(`rabbitmq: no AMQP answer after ${RABBIT_READY_TIMEOUT_MS / 1000} s`, rabbit.consoleLogFile);
}

export async function startRabbit(profile) {
  const rabbit = rabbitPaths(profile);
  if (rabbitPid(profile)) {
    // Already running, or still booting from an earlier start: wait for it either way.
    await waitForBroker(profile, rabbit, rabbitPid(profile));
    return 'rabbitmq already running';
  }
  await assertPortFree(profile.ports.amqp, 'RabbitMQ');
  await assertPortFree(profile.ports.rabbitDistribution, 'RabbitMQ distribution');
  if (epmdPids(profile).length === 0) await assertPortFree(profile.ports.epmd, 'epmd');
  writeConfiguration(profile, rabbit);
  const wrapperPid = spawnBroker(profile, rabbit);
  await waitForBroker(profile, rabbit, wrapperPid);
  // epmd was started by the node and outlives it: remember its PID to stop it later.
  const [epmd] = epmdPids(profile);
  if (epmd) writePidFile(rabbit.epmdPidFile, epmd);
  return 'rabbitmq started';
}

export async function stopRabbit(profile) {
  const rabbit = rabbitPaths(profile);
  const outcomes = [];
  const beam = rabbitPid(profile);
  if (beam) outcomes.push(`rabbitmq ${await stopPid(beam, { graceMs: RABBIT_STOP_GRACE_MS })}`);
  // The shell wrapper exits with the VM; stop it too in case the VM never wrote its PID.
  const wrapper = readPidFile(rabbit.wrapperPidFile);
  if (isOurNode(profile, wrapper)) {
    const outcome = await stopPid(wrapper, { graceMs: RABBIT_STOP_GRACE_MS });
    if (!beam) outcomes.push(`rabbitmq ${outcome}`);
  }
  for (const epmd of epmdPids(profile)) outcomes.push(`epmd ${await stopPid(epmd, { graceMs: EPMD_STOP_GRACE_MS })}`);
  [rabbit.pidFile, rabbit.wrapperPidFile, rabbit.epmdPidFile].forEach(removeFile);
  return outcomes.length > 0 ? outcomes.join(', ') : 'rabbitmq not running';
}
