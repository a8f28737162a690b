/**
 * Shared by this service's integration specs: the operator's view of deliveries
 * through the ops tool, webhook set, sandbox credits as the event source, and
 * request headers as the partner's receiver sees them.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { verifyWebhookSignature } from '@platform/crypto';
import {
  loadTestStack,
  newWebhookSecret,
  PartnerHttpClient,
  ReceivedRequest,
  runOps,
  setPartnerWebhook,
  TestPartner,
  waitFor,
} from '@platform/testing';
import type { AttemptRecording, ClaimedDelivery, NewDelivery } from '../src/persistence/deliveries.repository';

export interface DeliveryView {
  deliveryId: string;
  eventId: string;
  status: string;
  attemptCount: number;
  replayCount: number;
  lastStatusCode?: number;
  lastErrorClass?: string;
}

export const newSecret = newWebhookSecret;

function toView(raw: Record<string, unknown>): DeliveryView {
  const pick = (camel: string, snake: string) => raw[camel] ?? raw[snake];
  return {
    deliveryId: String(pick('deliveryId', 'delivery_id')),
    eventId: String(pick('eventId', 'event_id')),
    status: String(raw.status),
    attemptCount: Number(pick('attemptCount', 'attempt_count')),
    replayCount: Number(pick('replayCount', 'replay_count') ?? 0),
    lastStatusCode: pick('lastStatusCode', 'last_status_code') as number | undefined,
    lastErrorClass: pick('lastErrorClass', 'last_error_class') as string | undefined,
  };
}

export async function listDeliveries(partnerId: string, deadOnly = false): Promise<DeliveryView[]> {
  const output = await runOps<{ deliveries: Record<string, unknown>[] }>([
    'deliveries',
    'list',
    '--partner',
    partnerId,
    ...(deadOnly ? ['--dead'] : []),
  ]);
  return output.deliveries.map(toView);
}

/** Waits until the partner's delivery `deliveryId` (or the only one) satisfies `accept`. */
export function waitForDelivery(
  partnerId: string,
  accept: (delivery: DeliveryView) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<DeliveryView> {
  return waitFor(async () => (await listDeliveries(partnerId)).find(accept), { timeoutMs, intervalMs: 250, what });
}

export function setWebhook(partner: TestPartner, url: string, secret = newSecret()): Promise<string> {
  return setPartnerWebhook(partner.partnerId, url, secret);
}

/** A sandbox KES credit: the ledger emits `credit.received` for the partner. */
export async function sandboxKesCredit(partner: TestPartner, reference: string, amountKes = '100.00'): Promise<void> {
  const response = await new PartnerHttpClient(partner).post('/v1/sandbox/kes-credits', {
    amount: amountKes,
    reference,
  });
  expect([200, 201]).toContain(response.status);
}

export function header(request: ReceivedRequest, name: string): string {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

export const deliveryIdOf = (request: ReceivedRequest) => header(request, 'X-Service-Delivery');

export function signatureVerifies(request: ReceivedRequest, secret: string): boolean {
  return verifyWebhookSignature(
    secret,
    header(request, 'X-Service-Signature'),
    header(request, 'X-Service-Timestamp'),
    deliveryIdOf(request),
    request.body,
  );
}

export function sandboxTimeScale(): number {
  const scale = loadTestStack().sandboxTimeScale;
  return typeof scale === 'number' && scale > 0 ? scale : 0.05;
}

/** The ops tool's failure text (it exits non-zero on a refusal). */
export async function opsRefusal(args: string[]): Promise<string> {
  try {
    await runOps(args);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`ops ${args.join(' ')} succeeded; a refusal was expected`);
}

/** The local process that holds the client end of a TCP connection to us from `port`, via ss(8). */
export function senderPid(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    execFile('ss', ['-Htnp', 'state', 'established', `( sport = :${port} )`], (error, stdout) => {
      const match = error ? null : /pid=(\d+)/.exec(stdout);
      resolve(match ? Number(match[1]) : null);
    });
  });
}

/**
 * As if the tables had been partitioned at `cutoverMs` (a Monday): the tables from before, the
 * range below the first week, made to end there, so that the specs can create the weeks since as
 * the retention worker would have. A scratch database starts partitioned this week; its tables
 * from before are empty, so the attach's check of their rows costs nothing.
 */
export async function partitionedSince(db: { query(sql: string): Promise<unknown> }, cutoverMs: number): Promise<void> {
  const cutover = new Date(cutoverMs).toISOString();
  for (const [parent, table] of [
    ['webhook_deliveries', 'deliveries'],
    ['webhook_delivery_attempts', 'delivery_attempts'],
  ] as const) {
    await db.query(`ALTER TABLE ${parent} DETACH PARTITION ${table}`);
    await db.query(`ALTER TABLE ${parent} ATTACH PARTITION ${table} FOR VALUES FROM (MINVALUE) TO ('${cutover}')`);
  }
}

/** Each claimed delivery recorded as the worker records a first-time success: a 200 after 5 ms, delivered. */
export function deliveredRecordings(claimed: ClaimedDelivery[]): AttemptRecording[] {
  return claimed.map((c) => ({
    claimed: c,
    attempt: {
      attemptId: randomUUID(),
      attemptNumber: c.attemptCount + 1,
      startedAt: new Date(),
      latencyMs: 5,
      statusCode: 200,
      errorClass: null,
      responseExcerpt: '',
    },
    next: { status: 'delivered' as const },
  }));
}

/** A new delivery of an event of `partnerId` created at `createdAt`, as the accept path makes one. */
export function newDelivery(partnerId: string, createdAt: Date, eventId: string = randomUUID()): NewDelivery {
  return {
    deliveryId: randomUUID(),
    eventId,
    partnerId,
    eventType: 'order.settled',
    body: '{}',
    traceparent: null,
    createdAt,
  };
}

export interface PlantedDelivery {
  status: 'pending' | 'delivered' | 'dead' | 'no_endpoint';
  createdAtMs: number;
  /** Unique per spec database (a counter): the feed's positions are. */
  feedPosition: number;
  /** Also a partner retry naming it. */
  partnerRetry?: boolean;
}

/**
 * A delivery written through the partitioned parents (so it lands in its week, or in the range below
 * the first week), in the feed, with one attempt filed under its week: a pending one is due in an
 * hour, a delivered one was delivered when created, one held has no endpoint. Answers its id.
 */
export async function plantDelivery(
  db: { query(sql: string, parameters?: unknown[]): Promise<unknown> },
  planted: PlantedDelivery,
): Promise<string> {
  const deliveryId = randomUUID();
  const createdAt = new Date(planted.createdAtMs);
  await db.query(
    `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status,
                                     next_attempt_at, created_at, delivered_at, feed_position, attempt_count)
     VALUES ($1, $2, $3, 'order.settled', '{}', CASE WHEN $4 = 'no_endpoint' THEN NULL ELSE 'https://example.test/hook' END,
             $4, CASE WHEN $4 = 'pending' THEN now() + interval '1 hour' END, $5,
             CASE WHEN $4 = 'delivered' THEN $5::timestamptz END, $6, 1)`,
    [deliveryId, randomUUID(), randomUUID(), planted.status, createdAt, planted.feedPosition],
  );
  await db.query(
    `INSERT INTO webhook_delivery_attempts (id, delivery_id, delivery_created_at, attempt_number, started_at, latency_ms, status_code)
     VALUES ($1, $2, $3, 1, $3, 12, 500)`,
    [randomUUID(), deliveryId, createdAt],
  );
  if (planted.partnerRetry)
    await db.query('INSERT INTO partner_retries (partner_id, delivery_id, requested_at) VALUES ($1, $2, $3)', [
      randomUUID(),
      deliveryId,
      createdAt,
    ]);
  return deliveryId;
}
