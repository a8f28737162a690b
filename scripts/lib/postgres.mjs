// PostgreSQL 15 for one stack: a private cluster under <stack>/pg, started with pg_ctl.
// initdb and pg_ctl refuse to run as root, so as root they run as the `postgres` user.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { assertPortFree, ensureDir, isRoot, LoggedError, run } from './processes.mjs';

export const POSTGRES_BIN_DIR = '/usr/lib/postgresql/15/bin';
const PG_START_TIMEOUT_S = 60;
const PG_STOP_TIMEOUT_S = 60;
const SUPERUSER = 'postgres';
export const APP_ROLE = 'platform';
export const APP_PASSWORD = 'platform';

const bin = (name) => path.join(POSTGRES_BIN_DIR, name);

/** Runs a PostgreSQL tool as the postgres user when we are root, as ourselves otherwise. */
function runAsPostgres(tool, args, options) {
  if (!isRoot()) return run(bin(tool), args, options);
  return run('runuser', ['-u', 'postgres', '--', bin(tool), ...args], options);
}

async function postgresCanReach(dir) {
  if (!isRoot()) return true;
  try {
    await run('runuser', ['-u', 'postgres', '--', 'test', '-x', dir]);
    return true;
  } catch {
    return false;
  }
}

function postgresHome() {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  return line?.split(':')[5] || '/var/lib/postgresql';
}

/**
 * The cluster folder. Normally <stack>/pg; when the postgres user cannot walk into the
 * checkout (a clone under /root, say), the cluster lives in the postgres user's home
 * instead, in a folder named after the stack, and <stack>/pg is a symlink to it.
 */
async function resolvePostgresRoot(profile) {
  const linkOrDir = path.join(profile.stackDir, 'pg');
  if (isSymlink(linkOrDir)) return path.resolve(profile.stackDir, readlinkSync(linkOrDir));
  if (!existsSync(profile.stackDir) || (await postgresCanReach(profile.stackDir))) return linkOrDir;
  const digest = createHash('sha256').update(profile.stackDir).digest('hex').slice(0, 12);
  const outside = path.join(postgresHome(), 'platform-stacks', `${profile.name}-${digest}`);
  ensureDir(outside);
  if (!existsSync(linkOrDir)) symlinkSync(outside, linkOrDir);
  return outside;
}

function isSymlink(file) {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

export async function postgresPaths(profile) {
  const root = await resolvePostgresRoot(profile);
  return {
    root,
    dataDir: path.join(root, 'data'),
    socketDir: path.join(root, 'run'),
    // Written by the postgres user, so it lives in the folder that user owns.
    logFile: path.join(root, 'log', 'postgres.log'),
    port: profile.ports.postgres,
  };
}

async function prepareFolders(pg) {
  for (const dir of [pg.root, pg.socketDir, path.dirname(pg.logFile)]) ensureDir(dir);
  if (isRoot()) await run('chown', ['-R', 'postgres:postgres', pg.root]);
}

async function initCluster(pg) {
  if (existsSync(path.join(pg.dataDir, 'PG_VERSION'))) return false;
  // A folder without PG_VERSION is an interrupted initdb: start again from nothing.
  rmSync(pg.dataDir, { recursive: true, force: true });
  await prepareFolders(pg);
  // Local socket: trust, but the socket folder is 0700 and owned by postgres, so only that
  // user (and root) can reach it. TCP: password (scram) for the application role.
  const args = [
    '-D',
    pg.dataDir,
    '-U',
    SUPERUSER,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--encoding=UTF8',
    '--locale=C',
    '--no-instructions',
  ];
  await runAsPostgres('initdb', args, { cwd: pg.root, logFile: pg.logFile });
  return true;
}

export async function isPostgresRunning(pg) {
  if (!existsSync(path.join(pg.dataDir, 'postmaster.pid'))) return false;
  try {
    await runAsPostgres('pg_ctl', ['status', '-D', pg.dataDir], { cwd: pg.root });
    return true;
  } catch {
    return false;
  }
}

/** Initialises the cluster once and starts it; harmless when it already runs. */
export async function startPostgres(profile) {
  ensureDir(profile.stackDir);
  const pg = await postgresPaths(profile);
  const initialised = await initCluster(pg);
  await prepareFolders(pg);
  if (await isPostgresRunning(pg)) return 'postgres already running';
  await assertPortFree(pg.port, 'PostgreSQL');
  const statementStatistics = process.env.STACK_PG_STAT_STATEMENTS === '1';
  const serverOptions = [
    `-p ${pg.port}`,
    `-k ${pg.socketDir}`,
    '-c listen_addresses=127.0.0.1',
    '-c unix_socket_permissions=0700',
    ...(statementStatistics ? STATEMENT_STATISTICS_OPTIONS : []),
  ].join(' ');
  await runAsPostgres(
    'pg_ctl',
    ['start', '-D', pg.dataDir, '-l', pg.logFile, '-o', serverOptions, '-w', '-t', String(PG_START_TIMEOUT_S)],
    { cwd: pg.root, logFile: pg.logFile },
  );
  if (statementStatistics) await psql(pg, [ENSURE_ROLE_SQL, ...STATEMENT_STATISTICS_SETUP]);
  return initialised ? 'postgres initialised and started' : 'postgres started';
}

/**
 * STACK_PG_STAT_STATEMENTS=1 (off by default): the cluster starts with pg_stat_statements loaded, counting
 * statements inside functions too, readable by the application role from the `postgres` database
 * (`SELECT … FROM pg_stat_statements WHERE dbid = …`). It is read at start only: a cluster already running
 * keeps what it started with (stop the stack first).
 */
const STATEMENT_STATISTICS_OPTIONS = [
  '-c shared_preload_libraries=pg_stat_statements',
  '-c pg_stat_statements.track=all',
  '-c pg_stat_statements.track_planning=on',
];
const STATEMENT_STATISTICS_SETUP = [
  'CREATE EXTENSION IF NOT EXISTS pg_stat_statements',
  `GRANT pg_read_all_stats TO ${APP_ROLE}`,
  `GRANT EXECUTE ON FUNCTION pg_stat_statements_reset TO ${APP_ROLE}`,
];

export async function stopPostgres(profile) {
  const pg = await postgresPaths(profile);
  if (!(await isPostgresRunning(pg))) return 'postgres not running';
  await runAsPostgres('pg_ctl', ['stop', '-D', pg.dataDir, '-m', 'fast', '-w', '-t', String(PG_STOP_TIMEOUT_S)], {
    cwd: pg.root,
    logFile: pg.logFile,
  });
  return 'postgres stopped';
}

/**
 * Writes every dirty buffer out now, as the superuser (a bench after bulk seeding: otherwise the
 * checkpoint the seeding's WAL starts writes the history back while the bench measures).
 */
export async function checkpointPostgres(profile) {
  await psql(await postgresPaths(profile), ['CHECKPOINT']);
}

// ---------------------------------------------------------------- role and databases

function psql(pg, statements) {
  const args = [
    '-X',
    '-q',
    '-A',
    '-t',
    '-v',
    'ON_ERROR_STOP=1',
    '-h',
    pg.socketDir,
    '-p',
    String(pg.port),
    '-U',
    SUPERUSER,
    '-d',
    'postgres',
  ];
  // One -c per statement: each runs in its own transaction, as CREATE DATABASE requires.
  for (const statement of statements) args.push('-c', statement);
  return runAsPostgres('psql', args, { cwd: pg.root });
}

const ENSURE_ROLE_SQL = `DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN
    CREATE ROLE ${APP_ROLE} LOGIN CREATEDB PASSWORD '${APP_PASSWORD}';
  ELSE
    ALTER ROLE ${APP_ROLE} LOGIN CREATEDB PASSWORD '${APP_PASSWORD}';
  END IF;
END $$`;

function assertDatabaseName(name) {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe database name "${name}"`);
}

/**
 * Creates the role `platform` and each database in `names` owned by it. With `recreate`,
 * drops every one of them first (closing their connections) so a test run starts clean.
 */
export async function ensureDatabases(profile, names, { recreate = false } = {}) {
  names.forEach(assertDatabaseName);
  const pg = await postgresPaths(profile);
  try {
    await psql(pg, [ENSURE_ROLE_SQL]);
    if (recreate)
      await psql(
        pg,
        names.map((name) => `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      );
    const { stdout } = await psql(pg, ['SELECT datname FROM pg_database']);
    const existing = new Set(stdout.split('\n').map((line) => line.trim()));
    const missing = names.filter((name) => !existing.has(name));
    if (missing.length > 0)
      await psql(
        pg,
        missing.map((name) => `CREATE DATABASE ${name} OWNER ${APP_ROLE}`),
      );
    return missing;
  } catch (error) {
    throw new LoggedError(`databases: ${error.message}`, pg.logFile);
  }
}

export function databaseUrl(profile, database) {
  return `postgres://${APP_ROLE}:${APP_PASSWORD}@127.0.0.1:${profile.ports.postgres}/${database}`;
}
