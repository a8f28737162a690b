// Proves that with two replicas of trading (STACK_REPLICAS=2 npm test) its
// callers spread their calls over both: under steady partner reads that cross
// trading (GET /v1/orders, ListOrders behind the gateway's replicas), each
// trading replica answers 40–60 % of the gRPC calls trading answered, counted
// from each replica's own grpc_server_handled_total (the difference of two
// scrapes of its /metrics, so calls before the spec do not count). A client
// pinned to one replica (pick_first) would show about 100/0 and fail.
// With one replica there is nothing to spread: the spec says so and passes.
// Runs in the serial `faults` project, alone (no other spec's calls to trading
// mix in).
import { createTestPartner, loadTestStack, PartnerHttpClient } from '@platform/testing';

const READERS = 4;
const READS = 400;
/** The bound asserted: each replica's share of the calls trading answered. */
const SHARE_MIN = 0.4;
const SHARE_MAX = 0.6;
const PARTNER_REQUESTS_PER_MINUTE = 50_000;
const FAULT_TEST_TIMEOUT_MS = 120_000;

/** The sum of every grpc_server_handled_total sample of one replica (all methods, all codes). */
async function handledCalls(metricsUrl: string): Promise<number> {
  const response = await fetch(metricsUrl);
  if (!response.ok) throw new Error(`${metricsUrl} answered ${response.status}`);
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('grpc_server_handled_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

async function readOrders(client: PartnerHttpClient): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const reader = async () => {
    while (next < READS) {
      next += 1;
      statuses.push((await client.get('/v1/orders')).status);
    }
  };
  await Promise.all(Array.from({ length: READERS }, reader));
  return statuses;
}

describe('calls to trading with two replicas', () => {
  it(
    'spread over both: each replica answers 40-60 % of them, by its own call counter',
    async () => {
      const replicas = loadTestStack().replicas?.trading ?? [];
      if (replicas.length < 2) {
        console.log(
          `calls spread: trading runs ${replicas.length} replica(s); nothing to spread (STACK_REPLICAS=2 runs it)`,
        );
        return;
      }
      const client = new PartnerHttpClient(
        await createTestPartner({ rateLimitPerMinute: PARTNER_REQUESTS_PER_MINUTE }),
      );
      const before = await Promise.all(replicas.map((replica) => handledCalls(replica.metricsUrl)));
      const statuses = await readOrders(client);
      const after = await Promise.all(replicas.map((replica) => handledCalls(replica.metricsUrl)));

      const calls = after.map((count, index) => count - before[index]);
      const total = calls.reduce((sum, count) => sum + count, 0);
      const shares = calls.map((count) => count / total);
      console.log(
        `calls spread: ${total} calls to trading for ${statuses.length} reads; per replica ${calls.join(' / ')} ` +
          `(${shares.map((share) => `${Math.round(share * 100)} %`).join(' / ')})`,
      );
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      // Every read reached trading (a ListOrders each), so the shares are of real load.
      expect(total).toBeGreaterThanOrEqual(READS);
      for (const [index, share] of shares.entries())
        expect({ replica: replicas[index].replica, within: share >= SHARE_MIN && share <= SHARE_MAX }).toEqual({
          replica: replicas[index].replica,
          within: true,
        });
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});
