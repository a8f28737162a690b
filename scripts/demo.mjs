#!/usr/bin/env node
// `npm run demo`: a partner's first hour, narrated, against a started stack (`npm start`),
// using the partner SDK (@platform/sdk) for every call and its webhook verifier for every
// delivery. Steps: an HTTPS webhook receiver registered for the partner; KES funded by a
// mobile-money prompt; a quote and a buy; an administrator and a wallet, approved; a USDT
// send confirmed by code; a sell by deposit and hash; a KES transfer confirmed by code; a USD
// collection received; the endpoint down for a while and the partner catching up from the
// events feed, then retrying a failing delivery; then balances and a table of every event with its latency.
//   npm run demo                                   the sandbox partner of .stack/partner.json
//   npm run demo -- --stack .stack-test-3 --new-partner   another stack, a fresh partner
//   --admin-domain D (default example.com), --summary-file F (JSON of steps and events)
// A step whose route this gateway does not serve (404 NOT_FOUND) is reported as skipped and
// the steps depending on it are skipped too; the exit code is 0 only when every step ran.
import { execFile } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const SDK_ENTRY = path.join(REPO_ROOT, 'libs/sdk/dist/index.js');
/** Reading codes from the sandbox outbox: the same polling as the integration specs (libs/testing, built). */
const SANDBOX_OUTBOX_ENTRY = path.join(REPO_ROOT, 'libs/testing/dist/sandbox-outbox.js');
const OPS_ENTRY = path.join(REPO_ROOT, 'tools/ops/dist/main.js');
const OPS_TIMEOUT_MS = 60_000;
/** Loads the built workspaces (CommonJS) once main has checked they exist. */
const require = createRequire(import.meta.url);
/** Every wait for a webhook or a state, at time scale 1 (sandbox settlement takes seconds). */
const EVENT_TIMEOUT_MS = 120_000;
const POLL_INTERVAL_MS = 500;
const RECEIVER_BODY_BYTES_MAX = 256 * 1024;
const FUNDING_AMOUNT_KES = '3000.00';
const BUY_AMOUNT_KES = '1000.00';
const SEND_AMOUNT_USDT = '2.000000';
const SELL_AMOUNT_USDT = '3.000000';
const TRANSFER_AMOUNT_KES = '500.00';
const COLLECTION_AMOUNT_USD = '250.00';
const DEMO_PHONE = '254712345678';

// ---------------------------------------------------------------- arguments and setup

function parseArguments(argv) {
  const options = { stack: '.stack', newPartner: false, adminDomain: 'example.com', summaryFile: null };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (arg === '--stack') options.stack = argv[++index];
    else if (arg === '--new-partner') options.newPartner = true;
    else if (arg === '--admin-domain') options.adminDomain = argv[++index];
    else if (arg === '--summary-file') options.summaryFile = argv[++index];
    else throw new Error(`unknown argument ${arg}`);
  }
  options.stackDir = path.resolve(REPO_ROOT, options.stack);
  return options;
}

function fail(message) {
  process.stderr.write(`\n✘ ${message}\n`);
  process.exit(1);
}

function ops(stackFile, args) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [OPS_ENTRY, ...args, '--json'],
      { env: { ...process.env, OPS_STACK_FILE: stackFile }, timeout: OPS_TIMEOUT_MS },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`ops ${args[0]} ${args[1]} failed: ${(stderr || stdout || error.message).trim()}`));
        else resolve(JSON.parse(stdout));
      },
    );
  });
}

// ---------------------------------------------------------------- narration

const startedAtMs = Date.now();
const elapsed = () => `${((Date.now() - startedAtMs) / 1000).toFixed(1).padStart(5)}s`;
const say = (line) => process.stdout.write(`${line}\n`);
const detail = (line) => say(`        ${line}`);

/** A step not run because its route is not served; the steps after it that need it are skipped too. */
class RouteNotServed extends Error {
  constructor(route) {
    super(`${route} is not served by this gateway`);
    this.route = route;
  }
}

const steps = [];
const WEBHOOK_STEP = 'Register an HTTPS webhook endpoint for the partner (operator: ops webhook set)';
const WALLET_STEP =
  'Register an administrator and a withdrawal wallet; confirm with the e-mailed code; the (sandbox) review approves it';

async function step(number, title, action, { needs = [] } = {}) {
  const blocked = needs.find((name) => steps.find((done) => done.name === name)?.status !== 'done');
  if (blocked) {
    say(`\n${elapsed()}  ${number}. ${title}\n        ⏭ skipped: needs "${blocked}"`);
    steps.push({ name: title, status: 'skipped', detail: `needs ${blocked}` });
    return undefined;
  }
  say(`\n${elapsed()}  ${number}. ${title}`);
  try {
    const result = await action();
    steps.push({ name: title, status: 'done' });
    say(`        ✔ done`);
    return result;
  } catch (error) {
    if (error instanceof RouteNotServed) {
      steps.push({ name: title, status: 'skipped', detail: error.message, route: error.route });
      say(`        ⏭ skipped: ${error.message} (written against the contract; it runs once the route is deployed)`);
      return undefined;
    }
    steps.push({ name: title, status: 'failed', detail: error.message });
    say(`        ✘ failed: ${error.message}${error.requestId ? ` (requestId ${error.requestId})` : ''}`);
    return undefined;
  }
}

// ---------------------------------------------------------------- webhook receiver

function startReceiver(tlsDir, verifier) {
  const events = [];
  const waiters = new Set();
  // Event ids processed, whichever path brought them (a webhook or the events feed): each is handled once.
  const processed = new Set();
  const state = { down: false };
  /** Handles an event once per id; false when it was handled already. */
  const handle = (event, via) => {
    if (processed.has(event.id)) return false;
    processed.add(event.id);
    events.push(event);
    detail(
      `⇠ ${via} ${event.type} (${describeEvent(event)})${event.latencyMs === undefined ? '' : ` after ${event.latencyMs} ms`}`,
    );
    for (const waiter of waiters) waiter();
    return true;
  };
  const server = createServer(
    { key: readFileSync(path.join(tlsDir, 'server-key.pem')), cert: readFileSync(path.join(tlsDir, 'server.pem')) },
    (req, res) => {
      const chunks = [];
      let size = 0;
      req.on('data', (chunk) => {
        size += chunk.length;
        if (size <= RECEIVER_BODY_BYTES_MAX) chunks.push(chunk);
      });
      req.on('end', async () => {
        const receivedAtMs = Date.now();
        // The endpoint is "down": every attempt fails, so the service retries and the partner catches up from the feed.
        if (state.down) return void res.writeHead(503).end('down');
        try {
          // Raw bytes in, verified event out: signature, timestamp tolerance, delivery-id dedupe.
          const verified = await verifier.verify(Buffer.concat(chunks), req.headers);
          res.writeHead(200).end('ok');
          if (verified.duplicate) return;
          handle(
            {
              ...verified.event,
              deliveryId: verified.deliveryId,
              receivedAtMs,
              latencyMs: receivedAtMs - Date.parse(verified.event.createdAt),
            },
            'webhook',
          );
        } catch (error) {
          res.writeHead(400).end('refused');
          detail(`⇠ webhook refused: ${error.message}`);
        }
      });
    },
  );
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `https://localhost:${port}/webhooks`,
        events,
        state,
        handle,
        waitFor(predicate, what, timeoutMs = EVENT_TIMEOUT_MS) {
          return new Promise((resolveWait, rejectWait) => {
            const check = () => {
              const found = events.find(predicate);
              if (!found) return;
              waiters.delete(check);
              clearTimeout(timer);
              resolveWait(found);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              rejectWait(new Error(`no ${what} webhook within ${timeoutMs / 1000} s`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}

/** The id of what an event is about, whichever kind it is (undefined for none). */
function subjectIdOf(data) {
  return (
    data.orderId ??
    data.transferId ??
    data.sendId ??
    data.collectionId ??
    data.transactionId ??
    data.activityId ??
    data.confirmationId
  );
}

function describeEvent(event) {
  const data = event.data ?? {};
  const id = subjectIdOf(data);
  const amount = data.kesTotalAmount
    ? `${data.kesTotalAmount} KES`
    : data.amount?.value
      ? `${data.amount.value} ${data.amount.currency}`
      : data.net
        ? `${data.net} USD net`
        : '';
  return [data.status, amount, id ? `id ${String(id).slice(0, 8)}…` : ''].filter(Boolean).join(', ');
}

// ---------------------------------------------------------------- helpers

/** Maps an SDK refusal that means "this route does not exist here" to RouteNotServed. */
function routeServed(route) {
  return (error) => {
    if (error?.status === 404 && error.code === 'NOT_FOUND') throw new RouteNotServed(route);
    throw error;
  };
}

async function until(read, done, what, timeoutMs = EVENT_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/** The newest code e-mailed about `subjectId` (the sandbox outbox is the only place codes can be read). */
async function codeFor(client, subjectId) {
  const { sandboxCodeMessage } = require(SANDBOX_OUTBOX_ENTRY);
  const entry = await sandboxCodeMessage(client, subjectId, { intervalMs: POLL_INTERVAL_MS });
  detail(`code e-mailed to ${entry.to} (${entry.kind}), read from GET /v1/sandbox/outbox`);
  return entry.code;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A fresh valid TRON address: version byte 0x41, 20 random bytes, base58check. */
function randomTronAddress() {
  const payload = Buffer.concat([Buffer.from([0x41]), randomBytes(20)]);
  const checksum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest().subarray(0, 4);
  let number = BigInt(`0x${Buffer.concat([payload, checksum]).toString('hex')}`);
  let encoded = '';
  while (number > 0n) {
    encoded = BASE58[Number(number % 58n)] + encoded;
    number /= 58n;
  }
  return encoded;
}

const usd = (value) => value ?? '—';

// ---------------------------------------------------------------- the journey

async function journey(client, receiver, partner, context) {
  const { stackFile, options } = context;
  const waitEvent = (type, predicate, what) =>
    receiver.waitFor((event) => event.type === type && predicate(event.data ?? {}), what ?? type);
  const state = {};

  await step(1, WEBHOOK_STEP, async () => {
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    context.secrets.push(secret);
    await ops(stackFile, ['webhook', 'set', '--partner', partner.partnerId, '--url', receiver.url, '--secret', secret]);
    detail(`receiver listening on ${receiver.url}; deliveries are verified with @platform/sdk createWebhookVerifier`);
  });

  await step(
    2,
    `Fund ${FUNDING_AMOUNT_KES} KES by mobile-money prompt, approved on the (sandbox) handset`,
    async () => {
      const push = await client.funding
        .mobileMoneyPush({ phone: DEMO_PHONE, amount: FUNDING_AMOUNT_KES })
        .catch(routeServed('POST /v1/funding/mobile-money-push'));
      detail(`prompt ${push.pushId} is ${push.status}; the payer approves it`);
      await client.sandbox
        .approveMobileMoneyPush(push.pushId)
        .catch(routeServed('POST /v1/sandbox/mobile-money-pushes/{pushId}/approve'));
      const credit = await waitEvent(
        'credit.received',
        (data) => data.amount?.value === FUNDING_AMOUNT_KES,
        'credit.received',
      );
      detail(`credit ${credit.data.transactionId} landed in KES account ${credit.data.accountId}`);
    },
    { needs: [WEBHOOK_STEP] },
  );
  if (steps.at(-1).status === 'skipped' && steps.at(-1).route) {
    // Without the prompt route the journey still needs KES: the sandbox paybill credit stands in, said plainly.
    await step(
      '2b',
      `Fund ${FUNDING_AMOUNT_KES} KES by a sandbox paybill credit instead (POST /v1/sandbox/kes-credits)`,
      async () => {
        const credit = await client.sandbox.kesCredit({ amount: FUNDING_AMOUNT_KES });
        await waitEvent('credit.received', (data) => data.transactionId === credit.transactionId);
      },
    );
  }

  await step(
    3,
    `Quote and buy USDT for ${BUY_AMOUNT_KES} KES (debit-first: held on the KES balance, settled by webhook)`,
    async () => {
      let quote = await client.quotes.create({ side: 'buy', kesAmount: BUY_AMOUNT_KES });
      // A total ending .13 or .14 is a sandbox magic value (ambiguous or failed debit): price another amount.
      if (/\.1[34]$/.test(quote.kesTotalAmount))
        quote = await client.quotes.create({ side: 'buy', kesAmount: '1001.00' });
      detail(
        `quote ${quote.quoteId}: ${quote.kesAmount} KES → ${quote.usdtAmount} USDT at ${quote.rate}, fee ${quote.fee.kesAmount}, total ${quote.kesTotalAmount}, until ${quote.expiresAt}`,
      );
      const order = await client.orders.buy({
        quoteId: quote.quoteId,
        partnerReference: `demo-buy-${randomUUID()}`,
        expectedUsdtAmount: quote.usdtAmount,
      });
      detail(
        `order ${order.orderId} is ${order.status} (kesDebit ${order.kesDebit?.status}), HTTP ${order.$response.status}`,
      );
      await waitEvent('order.funds_confirmed', (data) => data.orderId === order.orderId);
      await waitEvent('order.settled', (data) => data.orderId === order.orderId);
      state.boughtUsdt = quote.usdtAmount;
    },
  );

  await step(4, WALLET_STEP, async () => {
    const admin = await client.admins.register({
      email: `demo.admin@${options.adminDomain}`,
      name: 'Demo Administrator',
    });
    detail(`administrator ${admin.adminId} (${admin.email}) is ${admin.status}`);
    const wallet = await client.wallets.register({
      chain: 'tron',
      asset: 'USDT',
      address: randomTronAddress(),
      label: 'Demo treasury',
    });
    detail(`wallet ${wallet.walletId} (${wallet.address}) is ${wallet.status}; code sent to ${wallet.approvalSentTo}`);
    const confirmed = await client.wallets.confirm(wallet.walletId, await codeFor(client, wallet.walletId));
    detail(`after the code: ${confirmed.status}`);
    const approved = await client.sandbox.approveWallet(wallet.walletId);
    detail(`after the review: ${approved.status}, screening ${approved.screeningStatus}`);
    state.walletId = wallet.walletId;
  });

  await step(
    5,
    `Send ${SEND_AMOUNT_USDT} USDT to the wallet, confirmed by code`,
    async () => {
      const send = await client.usdtSends
        .create({
          destinationWalletId: state.walletId,
          usdtAmount: SEND_AMOUNT_USDT,
          idempotencyKey: `demo-send-${randomUUID()}`,
        })
        .catch(routeServed('POST /v1/usdt/sends'));
      detail(
        `send ${send.id} is ${send.status}; confirmation ${send.confirmation.id} delivered to ${send.confirmation.deliveredTo}`,
      );
      const result = await client.confirmations
        .confirm(send.confirmation.id, await codeFor(client, send.id))
        .catch(routeServed('POST /v1/confirmations/{id}'));
      detail(`confirmation ${result.status} at ${result.verifiedAt}`);
      await waitEvent('usdt_send.settled', (data) => data.sendId === send.id);
    },
    { needs: [WALLET_STEP] },
  );

  await step(
    6,
    `Sell ${SELL_AMOUNT_USDT} USDT by deposit: order, hash attached, deposit lands (sandbox), KES paid out`,
    async () => {
      let [destination] = await client.payoutDestinations.list();
      if (!destination) {
        const added = await ops(stackFile, [
          'payout-destination',
          'add',
          '--partner',
          partner.partnerId,
          '--account-number',
          DEMO_PHONE,
          '--account-name',
          'Demo Payee',
        ]);
        detail(`no payout destination yet: the operator registered ${added.id}`);
        [destination] = await client.payoutDestinations.list();
      }
      const quote = await client.quotes.create({ side: 'sell', usdtAmount: SELL_AMOUNT_USDT });
      detail(`quote ${quote.quoteId}: ${quote.usdtAmount} USDT → ${quote.kesTotalAmount} KES net at ${quote.rate}`);
      const order = await client.orders.sell({
        quoteId: quote.quoteId,
        partnerReference: `demo-sell-${randomUUID()}`,
        payoutAccountId: destination.id,
      });
      detail(
        `order ${order.orderId} is ${order.status}: send USDT to ${order.depositAddress} on ${order.chain} before ${order.sendBefore}`,
      );
      const txHash = randomBytes(32).toString('hex');
      const attached = await client.orders.attachTxHash(order.orderId, txHash);
      detail(`hash ${txHash.slice(0, 12)}… attached (${attached.status})`);
      const deposit = await client.sandbox.usdtDeposit({ txHash, usdtAmount: quote.usdtAmount });
      detail(`deposit ${deposit.activityId} landed: ${deposit.status}`);
      await waitEvent('order.funds_confirmed', (data) => data.orderId === order.orderId);
      await waitEvent('order.settled', (data) => data.orderId === order.orderId);
    },
  );

  await step(7, `Pay out ${TRANSFER_AMOUNT_KES} KES by transfer, confirmed by code`, async () => {
    const transfer = await client.transfers
      .create({
        rail: 'mobile_money',
        destination: { accountNumber: DEMO_PHONE, accountName: 'Demo Payee' },
        amount: { currency: 'KES', value: TRANSFER_AMOUNT_KES },
        idempotencyKey: `demo-transfer-${randomUUID()}`,
      })
      .catch(routeServed('POST /v1/transfers'));
    detail(
      `transfer ${transfer.id} is ${transfer.status} (name check ${transfer.nameVerification}); code to ${transfer.confirmation.deliveredTo}`,
    );
    const result = await client.confirmations
      .confirm(transfer.confirmation.id, await codeFor(client, transfer.id))
      .catch(routeServed('POST /v1/confirmations/{id}'));
    detail(`confirmation ${result.status}`);
    await waitEvent('transfer.settled', (data) => data.transferId === transfer.id);
  });

  await step(8, `Open a USD collection and receive ${COLLECTION_AMOUNT_USD} USD into it (sandbox rails)`, async () => {
    const collection = await client.collections.create({
      currency: 'USD',
      partnerReference: `demo-${randomUUID().slice(0, 8)}`,
      payerLabel: 'Demo payer',
      expectedAmount: COLLECTION_AMOUNT_USD,
    });
    const instructions = collection.depositInstructions;
    detail(
      `collection ${collection.reference}: pay ${instructions.bankName} routing ${instructions.routingNumber} account ${instructions.accountNumber}, message "${instructions.depositMessage}"`,
    );
    const deposit = await client.sandbox.collectionDeposit(collection.id, {
      amount: COLLECTION_AMOUNT_USD,
      senderName: 'Demo Sender',
    });
    detail(`deposit ${deposit.disposition}; collection now ${deposit.collection.status}`);
    const received = await waitEvent('collection.received', (data) => data.collectionId === collection.id);
    detail(`gross ${usd(received.data.gross)}, fee ${usd(received.data.fee)}, net ${usd(received.data.net)} USD`);
  });

  await step(
    9,
    'The webhook endpoint goes down; events keep happening; the partner catches up from the events feed, then retries a delivery',
    () => catchUpStep(client, receiver),
    { needs: [WEBHOOK_STEP] },
  );
}

/** Step 9: the endpoint is down while events happen; the partner pages the feed from the last event it processed. */
async function catchUpStep(client, receiver) {
  const lastProcessed = receiver.events.at(-1)?.id;
  receiver.state.down = true;
  detail(`endpoint down (answers 503); last event processed: ${lastProcessed ?? 'none'}`);
  const credits = [];
  for (const reference of ['MISSED1', 'MISSED2'])
    credits.push(await client.sandbox.kesCredit({ amount: '10.00', reference }));
  const failing = await until(
    () => client.webhookDeliveries.list({ status: 'failing' }),
    (page) => page.length >= credits.length,
    'the missed deliveries failing',
  ).catch(routeServed('GET /v1/webhook-deliveries'));
  detail(`the service keeps retrying: ${failing.length} deliveries failing, next attempt ${failing[0].nextAttemptAt}`);
  // The feed numbers an event a moment after it is recorded: page from the last event
  // processed until the missed credits are there, as a partner's catch-up job would.
  let caughtUp = 0;
  let after = lastProcessed;
  const missedCredits = () =>
    credits.filter((credit) => !receiver.events.some((event) => event.data?.transactionId === credit.transactionId));
  await until(
    async () => {
      for await (const event of client.events.catchUp(after ? { after } : {})) {
        after = event.id;
        if (receiver.handle(event, 'feed')) caughtUp += 1;
      }
      return missedCredits().length;
    },
    (missing) => missing === 0,
    'the missed credits in the events feed',
  );
  detail(`caught up from GET /v1/events: ${caughtUp} event(s) processed once each`);
  receiver.state.down = false;
  const retried = await client.webhookDeliveries.retry(failing[0].id);
  detail(
    `endpoint back; delivery ${retried.id} retried now (${retried.status}); webhooks for events already processed are acknowledged and ignored`,
  );
}

function printSummary(balances, events) {
  say('\nBalances');
  for (const balance of balances)
    say(
      `  ${balance.currency.padEnd(5)} available ${balance.available.padStart(16)}   held ${balance.held.padStart(14)}`,
    );
  say('\nEvents processed (webhooks with their latency: event createdAt → verified at the receiver; the feed without)');
  say(`  ${'#'.padStart(2)}  ${'type'.padEnd(22)} ${'subject'.padEnd(38)} ${'latency'.padStart(9)}`);
  events.forEach((event, index) => {
    const subject = subjectIdOf(event.data ?? {}) ?? '';
    const latency = event.latencyMs === undefined ? 'feed' : `${event.latencyMs} ms`;
    say(
      `  ${String(index + 1).padStart(2)}  ${event.type.padEnd(22)} ${String(subject).padEnd(38)} ${latency.padStart(9)}`,
    );
  });
  say('\nSteps');
  for (const done of steps)
    say(
      `  ${{ done: '✔', skipped: '⏭', failed: '✘' }[done.status]} ${done.name}${done.detail ? `: ${done.detail}` : ''}`,
    );
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  if (![SDK_ENTRY, OPS_ENTRY, SANDBOX_OUTBOX_ENTRY].every((entry) => existsSync(entry)))
    fail('build first: npm run build');
  const { PartnerClient, createWebhookVerifier, inMemoryDeliveryDedupe } = require(SDK_ENTRY);
  const stackFile = path.join(options.stackDir, 'stack.json');
  if (!existsSync(stackFile)) fail(`no stack at ${options.stackDir}: start one with npm start`);
  const stack = JSON.parse(readFileSync(stackFile, 'utf8'));
  let partner;
  if (options.newPartner) {
    partner = await ops(stackFile, [
      'partner',
      'create',
      '--name',
      `Demo ${randomUUID().slice(0, 8)}`,
      '--admin-domain',
      options.adminDomain,
    ]);
  } else {
    const partnerFile = path.join(options.stackDir, 'partner.json');
    if (!existsSync(partnerFile)) fail(`no ${partnerFile}: start the stack with npm start (or pass --new-partner)`);
    partner = JSON.parse(readFileSync(partnerFile, 'utf8'));
  }
  const context = { stackFile, options, secrets: [] };
  // The verifier takes the secret registered in step 1: read through the context, so it is known before deliveries start.
  const verifier = {
    verify: (body, headers) =>
      createWebhookVerifier({ secrets: context.secrets, seenBefore: dedupe }).verify(body, headers),
  };
  const dedupe = inMemoryDeliveryDedupe();
  const receiver = await startReceiver(stack.tlsDir, verifier);
  const client = new PartnerClient({
    baseUrl: stack.gatewayUrl,
    apiKey: partner.apiKey,
    signingSecret: partner.signingSecret,
  });
  say(`Partner journey against ${stack.gatewayUrl} as partner ${partner.partnerId}`);
  const health = await client.health.get();
  say(`Gateway ${health.status}, version ${health.version}`);
  try {
    await journey(client, receiver, partner, context);
    printSummary(await client.balances.list(), receiver.events);
  } finally {
    await receiver.close();
  }
  if (options.summaryFile)
    writeFileSync(
      options.summaryFile,
      JSON.stringify({ partnerId: partner.partnerId, steps, events: receiver.events }, null, 2),
    );
  const failed = steps.filter((done) => done.status === 'failed').length;
  const skipped = steps.filter((done) => done.status === 'skipped').length;
  say(
    `\n${failed ? '✘' : skipped ? '⏭' : '✔'} ${steps.length - failed - skipped} of ${steps.length} steps done${skipped ? `, ${skipped} skipped` : ''}${failed ? `, ${failed} failed` : ''} in ${elapsed().trim()}`,
  );
  process.exit(failed ? 1 : skipped ? 3 : 0);
}

main().catch((error) => fail(error.stack ?? error.message));
