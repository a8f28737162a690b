// Proves every service of the started stack serves Prometheus metrics on its
// METRICS_PORT with the platform's families: Node's process metrics and gRPC
// server calls everywhere; the partner API's requests by route template (after a
// signed request, and never with an id in a label) and its refusal counters on
// the gateway; gRPC calls counted on both sides of gateway → ledger; the
// database pool everywhere; the outbox backlog where a service has an outbox;
// breaker state per upstream where it has clients; due rows, lag and claims
// under each worker's label where it has workers; the broker connection of the
// webhook worker. Scrapes that measure at scrape time are retried until every
// such series is present (a loaded machine may slow one measurement).
import { createTestPartner, loadTestStack, PartnerHttpClient, waitFor } from '@platform/testing';

const SERVICES = [
  'gateway',
  'trading',
  'ledger',
  'wallet-registry',
  'payouts',
  'collections',
  'notifier',
  'webhook-delivery',
];
const EVERYWHERE = [
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_seconds',
  'grpc_server_handled_total',
  'grpc_server_handling_seconds',
];
const OUTBOX = ['trading', 'ledger', 'payouts', 'collections'];
const UPSTREAMS: Record<string, string[]> = {
  gateway: ['trading', 'ledger', 'wallet-registry', 'notifier', 'collections', 'payouts'],
  trading: ['ledger', 'wallet-registry'],
  'wallet-registry': ['notifier'],
  payouts: ['ledger', 'trading', 'wallet-registry', 'notifier'],
  collections: ['ledger'],
};
/** Workers whose due rows are measured, and the reconciler, which has none. */
const WORKERS: Record<string, string[]> = {
  trading: ['order'],
  ledger: ['expired_holds', 'held_deposits'],
  'wallet-registry': ['admin_notice'],
  payouts: ['payout', 'transfer', 'usdt_send', 'transfer_batch', 'mobile_money_credit'],
  collections: ['collection_credit', 'collection_expiry'],
  'webhook-delivery': ['webhook_delivery'],
};
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** Every replica's metrics endpoint of `service` (one unless the stack runs STACK_REPLICAS). */
function metricsUrls(service: string): string[] {
  const stack = loadTestStack();
  const urls = stack.replicas?.[service]?.map((replica) => replica.metricsUrl) ?? [stack.metricsUrls?.[service]];
  if (urls.length === 0 || urls.some((url) => !url))
    throw new Error(`the stack file names no metrics URL for ${service}: restart the test stack`);
  return urls as string[];
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect({ url, status: response.status }).toEqual({ url, status: 200 });
  return response.text();
}

/** A sample line of `family` whose labels include every `label="value"` given. */
function hasSample(text: string, family: string, labels: string[] = []): boolean {
  return text
    .split('\n')
    .some((line) =>
      line.startsWith(`${family}{`) || line.startsWith(`${family} `)
        ? labels.every((label) => line.includes(label))
        : false,
    );
}

/** The series a scrape must carry for `service`, as readable names; empty when all are there. */
function missing(service: string, text: string): string[] {
  const wanted: Array<[string, string[]]> = [
    ['db_pool_connections_in_use', []],
    ['db_pool_waiting_clients', []],
    ...(OUTBOX.includes(service)
      ? ([
          ['outbox_unpublished_events', []],
          ['outbox_oldest_unpublished_age_seconds', []],
        ] as Array<[string, string[]]>)
      : []),
    ...(UPSTREAMS[service] ?? []).map((upstream): [string, string[]] => [
      'circuit_breaker_state',
      [`upstream="${upstream}"`],
    ]),
    ...(WORKERS[service] ?? []).flatMap((worker): Array<[string, string[]]> => [
      ['worker_due_rows', [`worker="${worker}"`]],
      ['worker_lag_seconds', [`worker="${worker}"`]],
      ['worker_claims_total', [`worker="${worker}"`]],
    ]),
  ];
  return wanted
    .filter(([family, labels]) => !hasSample(text, family, labels))
    .map(([family, labels]) => `${family}{${labels.join(',')}}`);
}

describe('metrics of every service', () => {
  /** Each service's scrapes, one per replica: every replica must carry the series of its own process. */
  const scraped = new Map<string, string[]>();
  /** All of a service's replicas together: a request is served by one of them, whichever the balancer picked. */
  const anyReplica = (service: string) => (scraped.get(service) ?? []).join('\n');

  beforeAll(async () => {
    const client = new PartnerHttpClient(await createTestPartner());
    expect((await client.request('GET', '/v1/balances')).status).toBe(200);
    for (const service of SERVICES) {
      const texts: string[] = [];
      for (const url of metricsUrls(service)) {
        texts.push(
          await waitFor(
            async () => {
              const text = await scrape(url);
              return missing(service, text).length === 0 ? text : undefined;
            },
            { timeoutMs: 30_000, intervalMs: 1_000, what: `every expected series of ${service} at ${url}` },
          ).catch(async () => scrape(url)),
        );
      }
      scraped.set(service, texts);
    }
  });

  it.each(SERVICES)(
    '%s serves process metrics, gRPC server calls, its pool and, where it has them, outbox, breaker and worker series',
    (service) => {
      const texts = scraped.get(service) ?? [];
      expect(texts.length).toBeGreaterThan(0);
      for (const text of texts) {
        for (const family of EVERYWHERE)
          expect({ service, family, declared: text.includes(`# TYPE ${family} `) }).toEqual({
            service,
            family,
            declared: true,
          });
        expect({ service, missing: missing(service, text) }).toEqual({ service, missing: [] });
        const unexpectedIds = text
          .split('\n')
          .filter((line) => !line.startsWith('#') && !line.startsWith('webhook_in_flight{') && UUID.test(line));
        expect({ service, unexpectedIds }).toEqual({ service, unexpectedIds: [] });
      }
    },
  );

  it('counts the partner API by route template and its refusals, and the call to the ledger on both sides', () => {
    const gateway = anyReplica('gateway');
    expect(
      hasSample(gateway, 'gateway_http_requests_total', ['route="/v1/balances"', 'method="GET"', 'status="200"']),
    ).toBe(true);
    expect(hasSample(gateway, 'gateway_http_request_duration_seconds_count', ['route="/v1/balances"'])).toBe(true);
    expect(gateway).toContain('# TYPE gateway_authentication_refusals_total counter');
    expect(hasSample(gateway, 'gateway_rate_limit_refusals_total', ['limit="partner"'])).toBe(true);
    expect(hasSample(gateway, 'grpc_client_handled_total', ['grpc_method="GetBalances"', 'grpc_code="OK"'])).toBe(true);
    expect(
      hasSample(anyReplica('ledger'), 'grpc_server_handled_total', ['grpc_method="GetBalances"', 'grpc_code="OK"']),
    ).toBe(true);
  });

  it('shows the webhook worker connected to the broker and consuming', () => {
    for (const replica of scraped.get('webhook-delivery') ?? []) {
      expect(replica).toMatch(/^amqp_connection_up 1$/m);
      expect(hasSample(replica, 'amqp_channels_open')).toBe(true);
    }
    // Messages and reconciler claims go to whichever replica took them.
    const webhooks = anyReplica('webhook-delivery');
    expect(hasSample(webhooks, 'event_consumer_messages_total', ['outcome="acked"'])).toBe(true);
    expect(hasSample(webhooks, 'worker_claims_total', ['worker="delivery_reconciler"'])).toBe(true);
  });
});
