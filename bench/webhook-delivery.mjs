#!/usr/bin/env node
// `npm run bench:webhooks`: sustained webhook deliveries per second for one and for two
// webhook-delivery replicas, and publish-to-acknowledged latency (p50/p99), against a
// local HTTPS receiver that answers 200 after a fixed latency. Not part of npm test.
//
// It uses the test profile's PostgreSQL and RabbitMQ (TEST_STACK_SLOT honoured) and holds
// that stack's lock, so it never runs beside `npm test` in the same slot. Its own replicas
// listen on ports 23700-23799. Each run starts from an empty svc_webhook_delivery database.
//
// Per run: PARTNERS partners, each with its own endpoint path. Throughput: BURST_EVENTS
// events published at once, deliveries/s = events / (last ack − first publish). Latency:
// LATENCY_RATE_PER_S events/s for LATENCY_SECONDS, publish → receiver's 200, p50 and p99.
// Commits per delivery: svc_webhook_delivery's commits (pg_stat_database) over the burst,
// from a snapshot taken once the statistics of the work before it were flushed to one taken
// as long after the last ack, ÷ BURST_EVENTS: a count, so it holds on a loaded machine
// (the replicas' idle polls over those seconds included).
// Rows read per delivery per table: svc_webhook_delivery's pg_stat_user_tables over the same
// window, ÷ BURST_EVENTS.
//
// History mode (BENCH_WEBHOOK_HISTORY_DELIVERIES > 0, over BENCH_WEBHOOK_HISTORY_PARTNERS
// partners, bench/lib/webhook-history.js): once the endpoints are set, each run first seeds that
// many finished deliveries with their attempts, spread over the delivery retention window (a
// day inside it), in chunks of one transaction each, then VACUUM ANALYZE and a CHECKPOINT (the
// seeding's WAL would otherwise start one that writes the history back during the burst and the
// latency phase, a cost of having just written a million rows, not of holding them); the measured partners
// are the history's first partners. `npm run bench -- --history` runs it beside a run without.
// Prints a table; writes JSON to bench/results/ (git-ignored).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createServer } from 'node:https';
import { createRequire } from 'node:module';
import path from 'node:path';
import { loadProfile, REPO_ROOT } from '../scripts/lib/profiles.mjs';
import {
  ensureDatabases,
  ensureSecrets,
  ensureTls,
  prepareStackFolder,
  startPostgres,
  startRabbit,
  stopInfra,
  tlsPaths,
} from '../scripts/lib/infra.mjs';
import { ensureServiceIdentities, SERVICES, serviceEnvironment } from '../scripts/lib/services.mjs';
import { identityPaths } from '../scripts/lib/identities.mjs';
import { acquireLock, ensureDir, run, sleep } from '../scripts/lib/processes.mjs';
import { checkpointPostgres } from '../scripts/lib/postgres.mjs';
import { openStatistics } from './lib/cost.mjs';
import { deliveryWindowMs } from './lib/retention-window.js';

const RECEIVER_LATENCY_MS = 20;
const PARTNERS = 16;
const BURST_EVENTS = 2_000;
const LATENCY_RATE_PER_S = 50;
const LATENCY_SECONDS = 10;
const WORKER_COUNTS = [1, 2];
const PORT_BASE_GRPC = 23_700;
const PORT_BASE_METRICS = 23_750;
const READY_TIMEOUT_MS = 30_000;
const DRAIN_TIMEOUT_MS = 180_000;
const MIGRATION_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 15_000;

const require = createRequire(import.meta.url);
const amqplib = require(path.join(REPO_ROOT, 'node_modules', 'amqplib'));
const { createClient, TlsMaterial } = require(path.join(REPO_ROOT, 'libs', 'grpc', 'dist', 'index.js'));
const { webhookDelivery } = require(path.join(REPO_ROOT, 'proto', 'dist', 'index.js'));
const { createLogger } = require(path.join(REPO_ROOT, 'libs', 'logger', 'dist', 'index.js'));
const { STATS_FLUSH_WAIT_MS, difference } = require('./lib/counters.js');
const {
  SEED_DELIVERIES_SQL,
  SEED_ENDPOINTS_SQL,
  historyChunks,
  historySpan,
  rowsReadPerDelivery,
  webhookHistoryOptions,
} = require('./lib/webhook-history.js');
const { Client } = require(path.join(REPO_ROOT, 'node_modules', 'pg'));

const history = webhookHistoryOptions(process.env);

const profile = loadProfile('test');
const service = SERVICES.find((candidate) => candidate.name === 'webhook-delivery');
const serviceDir = path.join(REPO_ROOT, service.folder);

// ---------------------------------------------------------------- receiver

function startReceiver() {
  const dir = profile.tlsDir;
  const acks = new Map(); // event id -> ack time (ms, high resolution)
  const server = createServer(
    { key: readFileSync(path.join(dir, 'server-key.pem')), cert: readFileSync(path.join(dir, 'server.pem')) },
    (req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () =>
        setTimeout(() => {
          res.writeHead(200).end('ok', () => {
            const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (!acks.has(id)) acks.set(id, performance.now());
          });
        }, RECEIVER_LATENCY_MS),
      );
    },
  );
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, acks, port: server.address().port })),
  );
}

// ---------------------------------------------------------------- replicas

function replicaEnv(index) {
  return {
    ...serviceEnvironment(profile, service),
    GRPC_PORT: String(PORT_BASE_GRPC + index),
    METRICS_PORT: String(PORT_BASE_METRICS + index),
    LOG_LEVEL: 'warn',
    SANDBOX_TIME_SCALE: '1',
  };
}

async function freshDatabase() {
  await ensureDatabases(profile, [service.database], { recreate: true });
  await run(process.execPath, [path.join(serviceDir, 'dist', 'migrate.js')], {
    cwd: serviceDir,
    env: replicaEnv(0),
    logFile: path.join(profile.logsDir, 'bench-migrate.log'),
    timeoutMs: MIGRATION_TIMEOUT_MS,
  });
}

async function startReplica(index) {
  const child = spawn(process.execPath, [path.join(serviceDir, 'dist', 'main.js')], {
    cwd: serviceDir,
    env: replicaEnv(index),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`replica ${index} exited with ${child.exitCode}`);
    const answered = await fetch(`http://127.0.0.1:${PORT_BASE_METRICS + index}/metrics`).then(
      () => true,
      () => false,
    );
    if (answered) {
      await sleep(1_000); // gRPC listens once the consumer is up
      return child;
    }
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error(`replica ${index} not ready after ${READY_TIMEOUT_MS} ms`);
}

async function stopReplica(child) {
  child.kill('SIGTERM');
  const deadline = Date.now() + STOP_GRACE_MS;
  while (child.exitCode === null && child.signalCode === null && Date.now() < deadline) await sleep(100);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function setEndpoints(receiverPort) {
  // Endpoints are set by the operator identity, with the stack's certificate for it.
  const logger = createLogger('bench', 'error');
  const ops = new TlsMaterial(
    { caFile: tlsPaths(profile).caFile, ...identityPaths(profile, 'ops') },
    { logger, expectedIdentity: 'ops' },
  );
  const client = createClient(webhookDelivery.WebhookAdminService, {
    upstream: 'webhook-delivery',
    address: `127.0.0.1:${PORT_BASE_GRPC}`,
    logger,
    tls: ops.client('webhook-delivery'),
  });
  const partners = Array.from({ length: PARTNERS }, () => randomUUID());
  for (const [index, partnerId] of partners.entries()) {
    await client.setEndpoint({
      partnerId,
      url: `https://localhost:${receiverPort}/p/${index}`,
      signingSecret: `bench-secret-${randomUUID()}`,
      rotationOverlapSeconds: 0,
    });
  }
  return partners;
}

// ---------------------------------------------------------------- load

async function openPublisher() {
  const connection = await amqplib.connect(serviceEnvironment(profile, service).AMQP_URL);
  const channel = await connection.createConfirmChannel();
  return { connection, channel };
}

function publish(channel, partnerId, sent) {
  const event = {
    id: randomUUID(),
    type: 'credit.received',
    createdAt: new Date().toISOString(),
    partnerId,
    data: { transactionId: randomUUID(), amount: { currency: 'KES', value: '100.00' }, reference: 'BENCH' },
  };
  sent.set(event.id, performance.now());
  channel.publish('partner.events', event.type, Buffer.from(JSON.stringify(event)), {
    persistent: true,
    messageId: event.id,
    contentType: 'application/json',
  });
}

async function waitAcked(acks, ids) {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (ids.some((id) => !acks.has(id))) {
    if (Date.now() > deadline)
      throw new Error(`${ids.filter((id) => !acks.has(id)).length} events not delivered in ${DRAIN_TIMEOUT_MS} ms`);
    await sleep(50);
  }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** The service database's counters so far (commits; rows per table), once what came before was flushed to the statistics. */
async function countersFlushed(statistics) {
  await sleep(STATS_FLUSH_WAIT_MS);
  const snapshot = await statistics.snapshot();
  return { database: snapshot.databases[service.database], tables: snapshot.tables[service.database] };
}

async function throughput(channel, partners, acks, statistics) {
  const sent = new Map();
  const before = await countersFlushed(statistics);
  const startMs = performance.now();
  for (let index = 0; index < BURST_EVENTS; index += 1) publish(channel, partners[index % partners.length], sent);
  await channel.waitForConfirms();
  const ids = [...sent.keys()];
  await waitAcked(acks, ids);
  const endMs = Math.max(...ids.map((id) => acks.get(id)));
  const burst = difference(await countersFlushed(statistics), before);
  return {
    deliveriesPerSecond: BURST_EVENTS / ((endMs - startMs) / 1_000),
    commitsPerDelivery: burst.database.commits / BURST_EVENTS,
    rowsReadPerDelivery: rowsReadPerDelivery(burst.tables, BURST_EVENTS),
    // Scans and rows behind those figures (sequential or by index), for the tables read at all.
    burstTables: Object.fromEntries(Object.entries(burst.tables).filter(([, counters]) => counters.rowsRead > 0)),
  };
}

async function latency(channel, partners, acks) {
  const sent = new Map();
  const total = LATENCY_RATE_PER_S * LATENCY_SECONDS;
  for (let index = 0; index < total; index += 1) {
    publish(channel, partners[index % partners.length], sent);
    await sleep(1_000 / LATENCY_RATE_PER_S);
  }
  await channel.waitForConfirms();
  const ids = [...sent.keys()];
  await waitAcked(acks, ids);
  const latencies = ids.map((id) => acks.get(id) - sent.get(id)).sort((a, b) => a - b);
  return {
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    // The tail beside p99 (unjudged): whether it is a handful of slow deliveries or a shift.
    tailMs: { p90: percentile(latencies, 90), p95: percentile(latencies, 95), slowest: latencies.slice(-8) },
  };
}

// ---------------------------------------------------------------- history

/** Where the seeded rows landed (rows per partition of both parents) and whether any is past the window. */
async function seededPlacement(client, windowMs) {
  // reltuples: the estimate the VACUUM ANALYZE just before made exact enough to say where rows are.
  const { rows } = await client.query(
    `SELECT c.relname AS name, c.reltuples::bigint AS rows FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent IN ('webhook_deliveries'::regclass, 'webhook_delivery_attempts'::regclass)`,
  );
  const [outside] = (
    await client.query(
      `SELECT count(*)::int AS rows FROM webhook_deliveries WHERE created_at < now() - $1 * interval '1 millisecond'`,
      [windowMs],
    )
  ).rows;
  // Retention would delete such rows during the measured burst, and its reads would count.
  if (outside.rows > 0) throw new Error(`${outside.rows} seeded deliveries are past the delivery window`);
  return {
    rowsPerPartition: Object.fromEntries(
      rows.filter((row) => Number(row.rows) > 0).map((row) => [row.name, Number(row.rows)]),
    ),
    pastWindow: outside.rows,
  };
}

/**
 * Seeds the history (see the header) once the measured partners' endpoints are set; resolves
 * to what was seeded and how long it took.
 */
async function seedHistory(databaseUrl, partners, receiverPort) {
  const startedAtMs = Date.now();
  const windowMs = deliveryWindowMs(replicaEnv(0));
  const { startMs, stepMs } = historySpan({ nowMs: startedAtMs, windowMs, deliveries: history.deliveries });
  const urlPrefix = `https://localhost:${receiverPort}/history/`;
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(SEED_ENDPOINTS_SQL, [history.partners, urlPrefix, partners[0], partners.length]);
    const { rows } = await client.query(
      'SELECT coalesce(max(feed_position + 0), 0)::text AS top FROM webhook_deliveries',
    );
    for (const chunk of historyChunks(history.deliveries)) {
      await client.query(SEED_DELIVERIES_SQL, [
        chunk.first,
        chunk.count,
        history.partners,
        startMs,
        stepMs,
        rows[0].top,
        urlPrefix,
        partners,
      ]);
      console.log(
        `  history: ${(chunk.first + chunk.count).toLocaleString('en-US')} of ${history.deliveries.toLocaleString('en-US')} deliveries`,
      );
    }
    const vacuumStartedAtMs = Date.now();
    await client.query('VACUUM ANALYZE');
    const vacuumAnalyzeMs = Date.now() - vacuumStartedAtMs;
    const checkpointStartedAtMs = Date.now();
    await checkpointPostgres(profile);
    return {
      ...history,
      windowDays: windowMs / (24 * 60 * 60 * 1000),
      seedMs: vacuumStartedAtMs - startedAtMs,
      vacuumAnalyzeMs,
      checkpointMs: Date.now() - checkpointStartedAtMs,
      ...(await seededPlacement(client, windowMs)),
    };
  } finally {
    await client.end();
  }
}

async function runOnce(workers) {
  await freshDatabase();
  const receiver = await startReceiver();
  const replicas = [];
  const publisher = { connection: null };
  const databaseUrl = serviceEnvironment(profile, service).DATABASE_URL;
  const statistics = await openStatistics(databaseUrl.replace(`/${service.database}`, '/{database}'), [
    service.database,
  ]);
  try {
    for (let index = 0; index < workers; index += 1) replicas.push(await startReplica(index));
    const partners = await setEndpoints(receiver.port);
    const seeded = history ? await seedHistory(databaseUrl, partners, receiver.port) : null;
    Object.assign(publisher, await openPublisher());
    const {
      deliveriesPerSecond,
      commitsPerDelivery,
      rowsReadPerDelivery: rowsRead,
      burstTables,
    } = await throughput(publisher.channel, partners, receiver.acks, statistics);
    const { p50Ms, p99Ms, tailMs } = await latency(publisher.channel, partners, receiver.acks);
    return {
      workers,
      deliveriesPerSecond,
      commitsPerDelivery,
      p50Ms,
      p99Ms,
      tailMs,
      rowsReadPerDelivery: rowsRead,
      burstTables,
      seeded,
    };
  } finally {
    await statistics.close().catch(() => undefined);
    await publisher.connection?.close().catch(() => undefined);
    await Promise.all(replicas.map(stopReplica));
    await new Promise((resolve) => receiver.server.close(resolve));
  }
}

// Replicas, PostgreSQL, RabbitMQ and the receiver share this machine: the figures only
// mean something next to its CPU count and load.
const machine = () => ({ cpus: os.cpus().length, loadAverage1m: Number(os.loadavg()[0].toFixed(2)) });

function printTable(results) {
  console.log(
    `\nwebhook-delivery: ${PARTNERS} endpoints answering 200 after ${RECEIVER_LATENCY_MS} ms; burst ${BURST_EVENTS}; latency at ${LATENCY_RATE_PER_S}/s for ${LATENCY_SECONDS} s`,
  );
  if (history)
    console.log(
      `history: ${history.deliveries.toLocaleString('en-US')} delivered deliveries with their attempts over ${history.partners.toLocaleString('en-US')} partners, seeded before each run`,
    );
  console.log(
    `machine: ${machine().cpus} CPUs, load average (1 min) ${machine().loadAverage1m}; everything runs on it`,
  );
  console.log('workers | deliveries/s | commits per delivery | p50 publish→ack ms | p99 publish→ack ms');
  console.log('--------|--------------|----------------------|--------------------|-------------------');
  for (const row of results) {
    console.log(
      `${String(row.workers).padStart(7)} | ${row.deliveriesPerSecond.toFixed(0).padStart(12)} | ${row.commitsPerDelivery.toFixed(2).padStart(20)} | ${row.p50Ms.toFixed(1).padStart(18)} | ${row.p99Ms.toFixed(1).padStart(18)}`,
    );
  }
  for (const row of results) {
    const tables = Object.entries(row.rowsReadPerDelivery).filter(([, rows]) => rows >= 0.05);
    console.log(
      `rows read per delivery, ${row.workers} worker(s): ${tables.map(([table, rows]) => `${table} ${rows.toFixed(2)}`).join(', ')}`,
    );
  }
}

async function main() {
  const release = acquireLock(path.join(profile.stackDir, 'test.lock'), 'bench:webhooks');
  prepareStackFolder(profile);
  try {
    ensureSecrets(profile);
    await ensureTls(profile);
    await ensureServiceIdentities(profile);
    process.env.NODE_EXTRA_CA_CERTS ??= tlsPaths(profile).caFile;
    await startPostgres(profile);
    await startRabbit(profile);
    const results = [];
    for (const workers of WORKER_COUNTS) results.push(await runOnce(workers));
    printTable(results);
    const resultsDir = path.join(REPO_ROOT, 'bench', 'results');
    ensureDir(resultsDir);
    const file = path.join(resultsDir, `webhook-delivery-${new Date().toISOString().replaceAll(':', '-')}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ at: new Date().toISOString(), receiverLatencyMs: RECEIVER_LATENCY_MS, partners: PARTNERS, burstEvents: BURST_EVENTS, history, latencyRatePerSecond: LATENCY_RATE_PER_S, machine: machine(), results }, null, 2)}\n`,
    );
    console.log(`\nwritten ${path.relative(process.cwd(), file)}`);
  } finally {
    await stopInfra(profile).catch((error) => console.error(`stopping infrastructure: ${error.message}`));
    release();
  }
}

await main();
