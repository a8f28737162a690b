#!/usr/bin/env node
// Where a page of 100 events or statement lines spends its CPU: starts a test-profile stack in
// slot BENCH_STACK_SLOT (or uses BENCH_STACK_FILE's), gives a partner 100 sandbox credits (100
// credit.received events, 100 statement lines), then replaces the gateway, webhook-delivery and
// the ledger with instances under `node --cpu-prof` while autocannon reads GET /v1/events?limit=100
// and then the statement page, each for BENCH_DURATION_S. The profiles land in
// bench/results/cpu-orders-<service>/; rank them with bench/cpu-profile-top.mjs. An extra run
// for looking, never a measured figure (the profiler costs CPU of its own).
//   BENCH_STACK_SLOT=1 node bench/pages-profile.mjs
import { continueOnPinnedNode } from '../scripts/lib/runtime.mjs';
import { loadProfile } from '../scripts/lib/profiles.mjs';
import { step } from '../scripts/lib/steps.mjs';
import { cannon } from './lib/ceilings.mjs';
import { autocannonRequests } from './lib/http.mjs';
import { boundedInt } from './lib/options.js';
import { createBenchPartner } from './lib/partners.mjs';
import { withProfiledServices } from './lib/profiling.mjs';
import { startReceiver } from './lib/receiver.mjs';
import { openStack } from './lib/stack.mjs';

process.env.TEST_STACK_SLOT = process.env.BENCH_STACK_SLOT ?? '9';
const PAGE_SIZE = 100;
const durationS = boundedInt(process.env, 'BENCH_DURATION_S', 10, 1, 300);
const connections = boundedInt(process.env, 'BENCH_CONNECTIONS', 32, 1, 512);
/** A profiled service starting on a busy machine (load 40 and more) can take a minute. */
const SERVICE_READY_TIMEOUT_MS = 90_000;

async function preparedPartner(stack, receiver) {
  const partner = await createBenchPartner({
    stackFile: stack.stackFile,
    gatewayUrl: stack.description.gatewayUrl,
    receiverUrl: receiver.url,
    name: 'Bench pages profiled',
  });
  for (let index = 0; index < PAGE_SIZE; index += 1)
    await partner.client.expect('POST', '/v1/sandbox/kes-credits', { amount: '1.00' }, 201);
  for (let tries = 0; ; tries += 1) {
    const page = await partner.client.get(`/v1/events?limit=${PAGE_SIZE}`);
    if (page.status === 200 && page.body.length === PAGE_SIZE) break;
    if (tries > 120) throw new Error('the events feed never served a full page');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const balances = await partner.client.get('/v1/balances');
  const account = balances.body.find((balance) => balance.currency === 'KES').accountId;
  return { partner, account };
}

async function main() {
  await continueOnPinnedNode();
  const stack = await openStack(loadProfile('test'));
  const receiver = await startReceiver(stack.description.tlsDir);
  try {
    const { partner, account } = await step('partner with 100 credits', () => preparedPartner(stack, receiver));
    const load = (path) =>
      cannon(stack.description.gatewayUrl, autocannonRequests([{ credentials: partner.credentials, path }], 'GET'), {
        connections,
        durationS,
      });
    const ctx = { profile: stack.profile };
    const profiled = async () => {
      console.log(await step('events pages under --cpu-prof', () => load(`/v1/events?limit=${PAGE_SIZE}`)));
      console.log(
        await step('statement pages under --cpu-prof', () =>
          load(`/v1/balances/${account}/transactions?limit=${PAGE_SIZE}`),
        ),
      );
    };
    await withProfiledServices(ctx, ['gateway', 'webhook-delivery', 'ledger'], profiled, {
      readyTimeoutMs: SERVICE_READY_TIMEOUT_MS,
    });
  } finally {
    await receiver.close();
    await stack.stop();
  }
}

main().catch((error) => {
  console.error(`✘ ${error.stack ?? error.message}`);
  process.exitCode = 1;
});
