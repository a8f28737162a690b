// Redis 7 for one stack: daemonized redis-server with its data, PID and log in the stack
// folder. appendonly keeps rate-limit and nonce state across a stop and start.
import path from 'node:path';
import {
  assertPortFree,
  ensureDir,
  exchange,
  isOurProcess,
  readPidFile,
  removeFile,
  run,
  stopPid,
  waitFor,
} from './processes.mjs';

const REDIS_READY_TIMEOUT_MS = 10_000;
const REDIS_STOP_GRACE_MS = 10_000;

export function redisPaths(profile) {
  return {
    dataDir: path.join(profile.stackDir, 'redis'),
    pidFile: path.join(profile.pidsDir, 'redis.pid'),
    logFile: path.join(profile.logsDir, 'redis.log'),
    port: profile.ports.redis,
  };
}

async function answersPing(port) {
  const answer = await exchange(port, 'PING\r\n');
  return answer?.toString().startsWith('+PONG') ?? false;
}

/** The PID of this stack's redis-server, or null when it does not run. */
export function redisPid(profile) {
  const redis = redisPaths(profile);
  const pid = readPidFile(redis.pidFile);
  return pid && isOurProcess(pid, `:${redis.port}`) ? pid : null;
}

export async function startRedis(profile) {
  const redis = redisPaths(profile);
  if (redisPid(profile) && (await answersPing(redis.port))) return 'redis already running';
  await assertPortFree(redis.port, 'Redis');
  ensureDir(redis.dataDir);
  ensureDir(path.dirname(redis.pidFile));
  ensureDir(path.dirname(redis.logFile));
  await run(
    'redis-server',
    [
      '--port',
      String(redis.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      redis.dataDir,
      '--daemonize',
      'yes',
      '--pidfile',
      redis.pidFile,
      '--logfile',
      redis.logFile,
      '--appendonly',
      'yes',
    ],
    { logFile: redis.logFile },
  );
  await waitFor(() => answersPing(redis.port), {
    timeoutMs: REDIS_READY_TIMEOUT_MS,
    what: 'redis',
    logFile: redis.logFile,
  });
  return 'redis started';
}

/** SIGTERM makes redis write its append-only file and exit; SIGKILL only past the bound. */
export async function stopRedis(profile) {
  const redis = redisPaths(profile);
  const pid = redisPid(profile);
  if (!pid) {
    removeFile(redis.pidFile);
    return 'redis not running';
  }
  const outcome = await stopPid(pid, { graceMs: REDIS_STOP_GRACE_MS });
  removeFile(redis.pidFile);
  return `redis ${outcome}`;
}
