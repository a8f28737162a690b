#!/usr/bin/env node
// `npm run bench:ledger`: throughput and latency of the ledger's money paths over gRPC.
// Scenarios: holds placed then posted (one entry each, with a fee leg), holds placed then
// posted in rounds (one PostHolds call per ROUND_HOLDS holds, as trading settles), and plain
// balanced entries (PostEntry), each against ONE hot account and spread over 1,000 accounts
// (the rounds against the hot account only: a round is one partner's).
// Prints a table and writes JSON to bench/results/ (git-ignored). Never part of `npm test`.
//
//   BENCH_STACK_FILE=.stack/stack.json npm run bench:ledger   against a started stack (npm start)
//   npm run bench:ledger                                       starts its own test-profile stack
//                                                              (TEST_STACK_SLOT respected), stops it after
//   BENCH_OPERATIONS=2000 BENCH_CONCURRENCY=32                 operations per scenario, calls in flight
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { loadProfile } from '../scripts/lib/profiles.mjs';
import { boundedInt } from './lib/options.js';
import { summarise } from './lib/stats.js';
import { openStack } from './lib/stack.mjs';

const require = createRequire(import.meta.url);
const { routedClient } = require('@platform/testing');
const { LEDGER_ACCESS } = require('../services/ledger/dist/grpc/access.js');
const { createLogger } = require('@platform/logger');
const { ledger } = require('@platform/proto');
const { Big } = require('@platform/money');

const OPERATIONS_DEFAULT = 2_000;
const OPERATIONS_MAX = 100_000;
const CONCURRENCY_DEFAULT = 32;
const CONCURRENCY_MAX = 256;
const SPREAD_ACCOUNTS = 1_000;
/** Accounts are opened and funded this many at a time. */
const SETUP_CONCURRENCY = 32;
const CALL_DEADLINE_MS = 30_000;
/** Each operation moves this much; every account is funded to cover all it could be asked for. */
const OPERATION_AMOUNT_KES = '10.00';
const FEE_KES = '0.10';
/** Holds posted by one PostHolds call in the rounds scenario (one operation there). */
const ROUND_HOLDS = 10;

const operations = boundedInt(process.env, 'BENCH_OPERATIONS', OPERATIONS_DEFAULT, 1, OPERATIONS_MAX);
const concurrency = boundedInt(process.env, 'BENCH_CONCURRENCY', CONCURRENCY_DEFAULT, 1, CONCURRENCY_MAX);
const logger = createLogger('bench', 'error');

// ---------------------------------------------------------------- workload

async function inBatches(items, size, work) {
  for (let start = 0; start < items.length; start += size)
    await Promise.all(items.slice(start, start + size).map(work));
}

/** Opens and funds `count` partner KES accounts so each covers every operation it may get. */
async function fundedAccounts(client, count, perAccountKes) {
  const partnerIds = Array.from({ length: count }, () => randomUUID());
  const accountIds = [];
  await inBatches(partnerIds, SETUP_CONCURRENCY, async (partnerId) => {
    const accounts = await client.openPartnerAccounts({ partnerId });
    await client.recordKesCredit({
      bankTransactionId: `BENCH-${randomUUID()}`,
      accountReference: accounts.kesAccountReference,
      amountKes: perAccountKes,
      rail: 'mobile_money_paybill',
      receivedAt: new Date().toISOString(),
    });
    accountIds.push(accounts.kesAccountId);
  });
  return accountIds;
}

async function holdThenPost(client, accountId, legs) {
  const holdId = randomUUID();
  await client.placeHold({ holdId, accountId, amount: OPERATION_AMOUNT_KES, metadata: {} });
  await client.postHold({
    holdId,
    postAmount: OPERATION_AMOUNT_KES,
    counterPostings: legs,
    kind: 'bench_hold_post',
    metadata: {},
  });
}

/** ROUND_HOLDS holds placed on one account, then posted by ONE PostHolds call, as a settlement round posts them. */
async function holdsThenPostRound(client, accountId, legs) {
  const holdIds = Array.from({ length: ROUND_HOLDS }, () => randomUUID());
  await Promise.all(
    holdIds.map((holdId) => client.placeHold({ holdId, accountId, amount: OPERATION_AMOUNT_KES, metadata: {} })),
  );
  const { outcomes } = await client.postHolds({
    holds: holdIds.map((holdId) => ({
      holdId,
      postAmount: OPERATION_AMOUNT_KES,
      counterPostings: legs,
      kind: 'bench_hold_post',
      metadata: {},
    })),
  });
  const refused = outcomes.filter((outcome) => !outcome.hold);
  if (refused.length > 0)
    throw new Error(`PostHolds refused ${refused.length} of ${ROUND_HOLDS}: ${refused[0].errorCode}`);
}

async function postEntry(client, accountId, legs) {
  await client.postEntry({
    entryId: randomUUID(),
    kind: 'bench_entry',
    metadata: {},
    postings: [{ accountId, amount: `-${OPERATION_AMOUNT_KES}` }, ...legs],
  });
}

/** Runs `operations` operations, `concurrency` in flight; answers per-operation latencies (ms) and the wall time. */
async function drive(operation, pickAccount) {
  const latencies = [];
  let next = 0;
  const startedAt = process.hrtime.bigint();
  const worker = async () => {
    while (next < operations) {
      next += 1;
      const begun = process.hrtime.bigint();
      await operation(pickAccount());
      latencies.push(Number(process.hrtime.bigint() - begun) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, wallMs: Number(process.hrtime.bigint() - startedAt) / 1e6 };
}

function scenarioResult(name, { latencies, wallMs }) {
  const { p50Ms, p99Ms } = summarise(latencies);
  return {
    scenario: name,
    operations: latencies.length,
    concurrency,
    perSecond: Math.round((latencies.length / wallMs) * 1000),
    p50Ms,
    p99Ms,
  };
}

async function runScenarios(client) {
  const treasury = (await client.getServiceAccount({ code: 'treasury', currency: 'KES' })).accountId;
  const feeRevenue = (await client.getServiceAccount({ code: 'fee_revenue', currency: 'KES' })).accountId;
  const legs = [
    { accountId: treasury, amount: new Big(OPERATION_AMOUNT_KES).minus(FEE_KES).toFixed(2) },
    { accountId: feeRevenue, amount: FEE_KES },
  ];
  // The hot account takes every operation of every scenario; spread accounts take at most all of them too.
  const coverKes = new Big(OPERATION_AMOUNT_KES).times(operations * (2 + ROUND_HOLDS)).toFixed(2);
  console.log(`▶ funding 1 hot account and ${SPREAD_ACCOUNTS} spread accounts`);
  const [hot] = await fundedAccounts(client, 1, coverKes);
  const spread = await fundedAccounts(client, SPREAD_ACCOUNTS, coverKes);
  const anySpread = () => spread[Math.floor(Math.random() * spread.length)]; // load spreading only; not a secret
  const results = [];
  for (const [name, operation, pick] of [
    ['hold+post, 1 hot account', (id) => holdThenPost(client, id, legs), () => hot],
    [`hold+post, ${SPREAD_ACCOUNTS} accounts`, (id) => holdThenPost(client, id, legs), anySpread],
    [`${ROUND_HOLDS} holds + one PostHolds, 1 hot account`, (id) => holdsThenPostRound(client, id, legs), () => hot],
    ['entry, 1 hot account', (id) => postEntry(client, id, legs), () => hot],
    [`entry, ${SPREAD_ACCOUNTS} accounts`, (id) => postEntry(client, id, legs), anySpread],
  ]) {
    console.log(`▶ ${name}`);
    results.push(scenarioResult(name, await drive(operation, pick)));
  }
  return results;
}

function printTable(results) {
  const header = ['scenario', 'ops', 'in flight', 'ops/s', 'p50 ms', 'p99 ms'];
  const rows = results.map((r) => [
    r.scenario,
    String(r.operations),
    String(r.concurrency),
    String(r.perSecond),
    String(r.p50Ms),
    String(r.p99Ms),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ');
  console.log(`\n${line(header)}\n${widths.map((width) => '-'.repeat(width)).join('  ')}`);
  rows.forEach((row) => console.log(line(row)));
}

async function main() {
  const { stackFile, stop } = await openStack(loadProfile('test'));
  let client;
  try {
    // Mutual TLS with the stack's certificates: each call as an identity the ledger admits for it.
    process.env.TEST_STACK_FILE = stackFile;
    client = routedClient(ledger.LedgerService, LEDGER_ACCESS.LEDGER, {
      upstream: 'ledger',
      logger,
      deadlineMs: CALL_DEADLINE_MS,
    });
    const results = await runScenarios(client);
    printTable(results);
    const report = {
      ranAt: new Date().toISOString(),
      operationsPerScenario: operations,
      concurrency,
      note: `hold+post = PlaceHold then PostHold (one 3-leg entry); ${ROUND_HOLDS} holds + one PostHolds = ${ROUND_HOLDS} PlaceHolds then one PostHolds posting them all (an operation is the round); entry = one 3-leg PostEntry`,
      results,
    };
    const folder = path.join(path.dirname(new URL(import.meta.url).pathname), 'results');
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `ledger-${report.ranAt.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nwritten ${path.relative(process.cwd(), file)}`);
  } finally {
    client?.close();
    await stop();
  }
}

main().catch((error) => {
  console.error(`✘ ${error.stack ?? error.message}`);
  process.exitCode = 1;
});
