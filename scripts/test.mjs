#!/usr/bin/env node
// `npm test`: build, unit tests, then the test stack in .stack-test/ (its own PostgreSQL,
// Redis, RabbitMQ and services on ports of its own, so it runs beside `npm start`) and
// the integration tests against it. Whatever it starts it stops, on failure and on
// Ctrl-C too. Ends with one line `tests: N passed, M failed`.
//   npm test -- ledger            arguments after -- go to jest (a path filter here)
//   TEST_SKIP_INTEGRATION=1       unit tests only
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadProfile } from './lib/profiles.mjs';
import {
  ensureCertificates,
  ensureDatabases,
  ensureInfraInstalled,
  ensureSecrets,
  ensureTls,
  prepareStackFolder,
  startPostgres,
  startRabbit,
  startRedis,
  stopInfra,
} from './lib/infra.mjs';
import {
  DATABASE_NAMES,
  ensureServiceIdentities,
  migrateAll,
  serviceLogFiles,
  startAll,
  stopAll,
  waitReady,
  writeStackFile,
} from './lib/services.mjs';
import { acquireLock, readJson, removeFile, tailLines } from './lib/processes.mjs';
import { StepFailed, step as printedStep } from './lib/steps.mjs';
import { scanLogs, SENSITIVE_VALUES_FILE } from './lib/log-scan.mjs';
import { changedBetween, trackedChanges } from './lib/tracked-files.mjs';
import { buildAll, ensureNpmDependencies, ensurePinnedNode } from './lib/workspace.mjs';

// Jest writes its results file when the run ends; a test that leaks a handle keeps it alive after.
const JEST_EXIT_GRACE_MS = 15_000;
const JEST_POLL_INTERVAL_MS = 500;
const ERROR_LOG_TAIL_LINES = 40;
const INTEGRATION_TEST_TIMEOUT_MS = 60_000;
const LEDGER_CHECK_TIMEOUT_MS = 60_000;
const FAULT_TEST_TIMEOUT_MS = 180_000;

// Service settings the integration tests depend on; the caller may override each.
process.env.STACK_ENV_RATE_STALENESS_LIMIT_MS ??= '3000';
process.env.STACK_ENV_RATE_TICK_MS ??= '250';
// Quotes live 100 s × 0.05 = 5 s: at 1.5 s (the default scaled) a quote taken before a burst of
// parallel orders on a loaded machine could lapse before its order was made.
process.env.STACK_ENV_QUOTE_TTL_MS ??= '100000';
// Sell orders wait 100 s × 0.05 = 5 s for their USDT, so expiry tests finish quickly.
process.env.STACK_ENV_ORDER_SEND_WINDOW_MS ??= '100000';
// Pay-in buys wait 160 s × 0.05 = 8 s for their payment.
process.env.STACK_ENV_ORDER_PAY_WINDOW_MS ??= '160000';
// A killed webhook-delivery replica's deliveries are reclaimed after the lease (the floor, 15 s).
process.env.STACK_ENV_DELIVERY_LEASE_MS ??= '15000';
// Confirmation codes live 200 s × 0.05 = 10 s, so expiry tests finish quickly.
process.env.STACK_ENV_CONFIRMATION_CODE_LIFETIME_MS ??= '200000';
// A new administrator waits 200 s × 0.05 = 10 s before it may receive codes, so the specs can see it end.
process.env.STACK_ENV_ADMIN_WAITING_PERIOD_MS ??= '200000';
// A claimed payout step is retaken 3 s after its owner's last renewal (the service's default, stated
// for the specs that read it): a step whose bank did not answer (NOANSWER) is retried then.
process.env.STACK_ENV_PAYOUT_STEP_LEASE_MS ??= '3000';
// The integration, fuzz and timing specs send thousands of refused requests from 127.0.0.1; the
// per-address limit itself is proven on an extra gateway with a limit of its own.
process.env.STACK_ENV_AUTH_REFUSALS_PER_MINUTE_PER_ADDRESS ??= '1000000';
// A transfer or USDT-send create killed midway is taken over 3 s after its owner's last renewal (the default).
process.env.STACK_ENV_TRANSFER_CREATE_LEASE_MS ??= '3000';
// Payouts and trading look for orphaned ledger holds every 0.5 s among holds at least 2 s old, so the
// hold-owner spec sees one voided quickly; every other spec's live holds are looked at too, and kept.
process.env.STACK_ENV_HOLD_RECONCILE_INTERVAL_MS ??= '500';
process.env.STACK_ENV_HOLD_RECONCILE_MIN_AGE_MS ??= '2000';

const profile = loadProfile('test');
// Bound on one jest run. Each replica is another full set of services on the same cores
// (STACK_REPLICAS=2 runs 16), so the bound grows with them: a two-replica integration run
// on a loaded 2-core machine went past 30 minutes with nothing hung.
const JEST_RUN_TIMEOUT_MS = 30 * 60_000 * profile.replicas;
const log = (name) => path.join(profile.logsDir, name);
const jestPassThrough = process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === '--'));
const skipIntegration = process.env.TEST_SKIP_INTEGRATION === '1';

let runningJest = null;
let stackStarted = false;
let interrupted = null; // the signal's name once one arrived
let releaseLock = () => {};
const runStartedAtMs = Date.now();

// Once interrupted, no further step starts.
function step(title, action) {
  if (interrupted) throw new StepFailed(`${title}: interrupted`);
  return printedStep(title, action);
}

// ---------------------------------------------------------------- jest

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Runs jest in its own process group, bounded. Resolves to { exitCode, lingered }:
 * lingered when jest had written its results but would not exit, and was stopped.
 */
function spawnJest(args, env, resultsFile) {
  return new Promise((resolve) => {
    const child = spawn('npx', ['jest', ...args], { cwd: profile.repoRoot, env, stdio: 'inherit', detached: true });
    runningJest = child;
    const startedAtMs = Date.now();
    let resultsSeenAtMs = null;
    let lingered = false;
    let killed = false;
    const watchdog = setInterval(() => {
      if (resultsSeenAtMs === null && existsSync(resultsFile)) resultsSeenAtMs = Date.now();
      const lingering = resultsSeenAtMs !== null && Date.now() - resultsSeenAtMs > JEST_EXIT_GRACE_MS;
      const overdue = Date.now() - startedAtMs > JEST_RUN_TIMEOUT_MS;
      if ((lingering || overdue) && !killed) {
        killed = true;
        lingered = lingering;
        console.error(
          lingering
            ? 'jest did not exit after its run (open handles?): stopping it'
            : `jest ran longer than ${JEST_RUN_TIMEOUT_MS / 60_000} min: stopping it`,
        );
        killGroup(child, 'SIGKILL');
      }
    }, JEST_POLL_INTERVAL_MS);
    const finish = (exitCode) => {
      clearInterval(watchdog);
      runningJest = null;
      resolve({ exitCode, lingered });
    };
    child.on('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
    child.on('error', (error) => {
      console.error(`jest: ${error.message}`);
      finish(1);
    });
  });
}

/** Runs one jest project; counts come from jest's --json results file. */
async function runJest(project, projectArgs, env = process.env) {
  if (interrupted) throw new StepFailed(`${project} tests: interrupted`);
  const resultsFile = path.join(profile.stackDir, `jest-${project}.json`);
  removeFile(resultsFile);
  console.log(`\n▶ ${project} tests`);
  const args = [
    '--selectProjects',
    project,
    '--ci',
    ...projectArgs,
    '--passWithNoTests',
    '--json',
    `--outputFile=${resultsFile}`,
    ...jestPassThrough,
  ];
  const run = await spawnJest(args, env, resultsFile);
  const results = readJson(resultsFile);
  // A run that finished but lingered is judged by its results, not by the kill.
  const exitCode = run.lingered && results ? (results.success ? 0 : 1) : run.exitCode;
  if (!results) {
    console.error(`✘ ${project} tests: jest exited with code ${exitCode} and wrote no results`);
    return { project, passed: 0, failed: 1, exitCode: exitCode || 1 };
  }
  // A suite that fails to load (syntax error, throwing import) has no failed test; count it.
  const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
  return { project, passed: results.numPassedTests, failed, exitCode };
}

// ---------------------------------------------------------------- the test stack

/**
 * The test stack starts as a partner with a CA of their own starts theirs
 * (`NODE_EXTRA_CA_CERTS=my-ca.pem npm start`): a CA the stack does not know, made in the
 * stack folder with a localhost certificate beside it that a test receiver serves. The
 * services must trust it and the stack's own CA alike. It replaces any NODE_EXTRA_CA_CERTS
 * of the caller, for the services and for the test processes.
 */
async function startAsPartnerWithOwnCa() {
  const outside = await ensureCertificates(path.join(profile.stackDir, 'outside-ca'), {
    caName: 'Sandbox Partner Own CA',
    logFile: log('tls.log'),
  });
  process.env.NODE_EXTRA_CA_CERTS = outside.caFile;
}

async function startTestStack() {
  stackStarted = true;
  // Services left by an interrupted earlier run would serve old code: stop them first.
  await step('leftover test services stopped', async () => {
    const stopped = await stopAll(profile);
    return stopped.length === 0
      ? 'no leftover test services'
      : `stopped leftover ${stopped.map((s) => s.name).join(', ')}`;
  });
  // Each run starts with empty service logs, so an error shown at the end is this run's.
  serviceLogFiles(profile).forEach(removeFile);
  removeFile(path.join(profile.stackDir, SENSITIVE_VALUES_FILE));
  await step('secrets and TLS', async () => {
    ensureSecrets(profile);
    await ensureTls(profile);
    const issued = await ensureServiceIdentities(profile);
    await startAsPartnerWithOwnCa();
    return issued.length > 0
      ? `secrets and TLS ready; identity certificates issued: ${issued.join(', ')}`
      : 'secrets and TLS ready';
  });
  await step('postgres started', () => startPostgres(profile));
  await step('redis started', () => startRedis(profile));
  await step('rabbitmq started', () => startRabbit(profile));
  await step('databases recreated', async () => {
    await ensureDatabases(profile, DATABASE_NAMES, { recreate: true });
  });
  await step('migrations applied', () => migrateAll(profile));
  await step('services started', async () => `services started: ${(await startAll(profile)).join(', ')}`);
  await step('services ready', () => waitReady(profile));
  writeStackFile(profile);
}

let stopping = Promise.resolve();

/**
 * Stops the test services and infrastructure. Calls queue behind each other: the signal
 * handler stops at once, and main stops again after its step in flight has settled, in
 * case that step started something meanwhile (the second pass finds nothing running).
 */
function stopTestStack() {
  if (!stackStarted) return stopping;
  stopping = stopping
    .then(async () => {
      try {
        await printedStep(
          'test services stopped',
          async () => `test services stopped (${(await stopAll(profile)).length})`,
        );
      } finally {
        await printedStep('test infrastructure stopped', async () => (await stopInfra(profile)).join('; '));
      }
    })
    .catch(() => {
      /* step() already printed it */
    });
  return stopping;
}

/** For CI readers: the end of every service log (serving or migrating) that recorded an error. */
function printServiceErrorLogs() {
  for (const file of serviceLogFiles(profile)) {
    const lines = tailLines(file, Number.MAX_SAFE_INTEGER);
    if (!lines.some((line) => line.includes('"level":"error"'))) continue;
    console.error(`\n── last ${ERROR_LOG_TAIL_LINES} lines of ${path.relative(process.cwd(), file)}`);
    for (const line of lines.slice(-ERROR_LOG_TAIL_LINES)) console.error(line);
  }
}

// ---------------------------------------------------------------- main

async function runEverything(results) {
  // Two runs in one checkout would share ports and drop each other's databases.
  releaseLock = acquireLock(path.join(profile.stackDir, 'test.lock'), 'npm test');
  prepareStackFolder(profile);
  await step('npm dependencies', () => ensureNpmDependencies({ logFile: log('npm.log') }));
  await step('infrastructure installed', () => ensureInfraInstalled({ logFile: log('apt.log') }));
  await step('built', () => buildAll({ logFile: log('build.log') }));
  results.push(await runJest('unit', []));
  if (skipIntegration || interrupted) return;
  await startTestStack();
  const env = { ...process.env, TEST_STACK_FILE: profile.stackFile };
  // Jest 29 takes testTimeout only globally (see jest.config.js), so the 60 s is given here.
  results.push(
    await runJest(
      'integration',
      ['--runInBand=false', '--maxWorkers=2', `--testTimeout=${INTEGRATION_TEST_TIMEOUT_MS}`],
      env,
    ),
  );
  // Fault tests stop the stack's infrastructure: one at a time, with nothing else running.
  results.push(await runJest('faults', ['--runInBand', `--testTimeout=${FAULT_TEST_TIMEOUT_MS}`], env));
  results.push(await runLedgerCheck());
  results.push(runLogScan());
}

/** No log of this run may hold a recorded secret or code, an `sk_` secret or a full account number. */
function runLogScan() {
  if (interrupted) throw new StepFailed('log scan: interrupted');
  console.log('\n▶ logs scanned for secrets, codes and account numbers');
  const { values, hits, shown } = scanLogs(profile, { sinceMs: runStartedAtMs });
  for (const hit of shown) console.error(`✘ ${hit.file}:${hit.line}: ${hit.what}`);
  if (hits.length > 0) console.error(`✘ ${hits.length} sensitive value(s) in the logs`);
  else console.log(`✔ no secret, code or account number in the logs (${values} recorded values and patterns checked)`);
  return {
    project: 'log scan',
    passed: hits.length ? 0 : 1,
    failed: hits.length ? 1 : 0,
    exitCode: hits.length ? 1 : 0,
  };
}

/** After the whole suite the ledger must still reconcile: `ops ledger check --json` against the test stack. */
async function runLedgerCheck() {
  if (interrupted) throw new StepFailed('ledger check: interrupted');
  console.log('\n▶ ops ledger check');
  const { status, stdout } = await new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(profile.repoRoot, 'tools/ops/dist/main.js'), 'ledger', 'check', '--json'],
      {
        env: { ...process.env, OPS_STACK_FILE: profile.stackFile },
        timeout: LEDGER_CHECK_TIMEOUT_MS,
      },
      (error, out) => resolve({ status: error ? (error.code ?? 1) : 0, stdout: out }),
    );
  });
  let report = null;
  try {
    report = JSON.parse(stdout);
  } catch {
    /* reported below */
  }
  const ok = status === 0 && report?.ok === true;
  if (!ok) console.error(`✘ ops ledger check failed (exit ${status}): ${stdout}`);
  else console.log(`✔ ledger reconciles (${report.checks.length} checks)`);
  return { project: 'ledger check', passed: ok ? 1 : 0, failed: ok ? 0 : 1, exitCode: ok ? 0 : 1 };
}

function summarise(results, setupFailed) {
  const passed = results.reduce((sum, result) => sum + result.passed, 0);
  const failed = results.reduce((sum, result) => sum + result.failed, 0);
  console.log(`\ntests: ${passed} passed, ${failed} failed`);
  if (passed + failed === 0 && !setupFailed) console.error('no tests ran');
  const jestFailed = results.some((result) => result.exitCode !== 0);
  return setupFailed || jestFailed || failed > 0 || passed + failed === 0 ? 1 : 0;
}

/** Installing, building, starting and testing changed no tracked file (a clean clone stays clean). */
function checkTrackedFiles(trackedAtStart) {
  console.log('\n▶ tracked files unchanged');
  const changed = changedBetween(trackedAtStart, trackedChanges(profile.repoRoot) ?? new Map());
  for (const file of changed) console.error(`✘ this run changed ${file}`);
  if (changed.length === 0) console.log('✔ no tracked file changed during the run');
  return {
    project: 'tracked files',
    passed: changed.length ? 0 : 1,
    failed: changed.length ? 1 : 0,
    exitCode: changed.length ? 1 : 0,
  };
}

async function main() {
  const results = [];
  let setupFailed = false;
  try {
    await runEverything(results);
  } catch (error) {
    setupFailed = true;
    if (!(error instanceof StepFailed)) console.error(`✘ ${process.env.DEBUG ? error.stack : error.message}`);
  }
  const failing = setupFailed || results.some((result) => result.failed > 0 || result.exitCode !== 0);
  if (failing && stackStarted && !interrupted) printServiceErrorLogs();
  await stopTestStack();
  if (!interrupted) results.push(checkTrackedFiles(trackedAtStart));
  releaseLock();
  return summarise(results, setupFailed);
}

// Ctrl-C or SIGTERM: stop jest and the stack now; main() then settles its step in flight,
// stops once more and exits.
function onSignal(signal) {
  if (interrupted) {
    console.error('still stopping the test stack…');
    return;
  }
  interrupted = signal;
  console.error(`\n${signal}: stopping the test stack`);
  if (runningJest) killGroup(runningJest, 'SIGTERM');
  stopTestStack();
}

// The checkout as it was before anything is installed or built; a run on the pinned Node started
// by one on another Node gets the first process's snapshot.
const TRACKED_AT_START_VARIABLE = 'NPM_TEST_TRACKED_AT_START';
process.env[TRACKED_AT_START_VARIABLE] ??= JSON.stringify([...(trackedChanges(profile.repoRoot) ?? new Map())]);
const trackedAtStart = new Map(JSON.parse(process.env[TRACKED_AT_START_VARIABLE]));

// Everything below runs on the pinned Node: a process started on another only installs it and waits.
try {
  prepareStackFolder(profile);
  await ensurePinnedNode({ logFile: log('npm.log') });
} catch (error) {
  if (!(error instanceof StepFailed)) console.error(`✘ ${error.message}`);
  process.exit(1);
}

process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const exitCode = await main();
process.exit(interrupted === 'SIGINT' ? 130 : interrupted === 'SIGTERM' ? 143 : exitCode);
