// How many of the gateway's coalesced batches carried more than one item, read
// from its grpc_client_batch_items histogram (the batches counted, less those
// in the ≤ 1 bucket). A spec takes it before and after its concurrent calls: a
// rise proves calls were sent together, which answers alone cannot show. With
// coalescing off (TRADING_BATCH_ITEMS_MAX=0) there are no batches; at 1, every
// batch is of one item: either way the count does not rise.
import { loadTestStack } from '@platform/testing';

export type BatchMethod = 'GetOrders' | 'CreateQuotes';

/** The sample of the first line of `family` for `method` that `accept` takes; 0 when there is none (no batch yet). */
function sample(lines: string[], family: string, method: BatchMethod, accept: (line: string) => boolean): number {
  const line = lines.find(
    (candidate) => candidate.startsWith(`${family}{`) && candidate.includes(`/${method}"`) && accept(candidate),
  );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Batches of more than one item the gateway has sent for `method` since it started. */
export async function sharedBatches(method: BatchMethod): Promise<number> {
  const url = loadTestStack().metricsUrls?.gateway;
  if (!url) throw new Error('the test stack names no gateway metrics URL');
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const lines = (await response.text()).split('\n');
  const batches = sample(lines, 'grpc_client_batch_items_count', method, () => true);
  const single = sample(lines, 'grpc_client_batch_items_bucket', method, (line) => line.includes('le="1"'));
  return batches - single;
}

/** Concurrent calls made by `round` (each checking its own answers), repeated until a batch carried more than one, at most `roundsMax` times. */
export async function untilShared(method: BatchMethod, roundsMax: number, round: () => Promise<void>): Promise<void> {
  const before = await sharedBatches(method);
  for (let done = 0; done < roundsMax; done += 1) {
    await round();
    if ((await sharedBatches(method)) > before) return;
  }
  throw new Error(`no ${method} batch of more than one item in ${roundsMax} rounds of concurrent calls`);
}
