/**
 * The production rate feed: GET RATE_FEED_URL, which answers JSON
 * {"bid": "129.1234", "ask": "129.9876", "observedAt": "2024-11-21T08:00:00.000Z"}
 * (decimal strings, an ISO 8601 UTC timestamp). One market rate for every
 * partner: the partner id is not sent. Each call is bounded by
 * RATE_FEED_TIMEOUT_MS (body included) and RATE_FEED_BODY_BYTES_MAX, and goes
 * through a circuit breaker so a failing feed is not hammered; any failure,
 * malformed answer or open breaker is "no rate" (the quote answers
 * RATE_UNAVAILABLE). A rate fetched less than RATE_FEED_REUSE_MS ago answers
 * again without a request, and quotes asking while a fetch is under way wait
 * for that one fetch: a quote does not pay a round trip to the provider each,
 * and a burst of quotes is one request, not one each. Only a rate is reused,
 * never a failure. Nothing in this repository serves such a feed: it is the
 * seam where the real market-data provider plugs in (RATE_FEED=http). Its
 * breaker reports as every upstream's does (circuit_breaker_*{upstream="rate-feed"}).
 */
import CircuitBreaker from 'opossum';
import type { Logger } from '@platform/logger';
import { observeBreaker } from '@platform/metrics';
import { Big, parseDecimal } from '@platform/money';
import { RATE_KES_MAX } from '../../domain/pricing';
import type { FeedRate, RateFeed } from './rate-feed';

export const RATE_FEED_BODY_BYTES_MAX = 4 * 1024;
/** Decimals a feed may send; the quote rounds to 4 in the service's favour. */
export const FEED_RATE_SCALE_MAX = 10;
const BREAKER_ERROR_THRESHOLD_PERCENT = 50;
const BREAKER_RESET_TIMEOUT_MS = 10_000;
const BREAKER_VOLUME_THRESHOLD = 5;
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export class RateFeedResponseError extends Error {
  override name = 'RateFeedResponseError';
}

function parseFeedRate(value: unknown, field: string): Big {
  const rate = parseDecimal(value, FEED_RATE_SCALE_MAX);
  if (rate === null || rate.lte(0) || rate.gt(RATE_KES_MAX)) throw new RateFeedResponseError(`rate feed: bad ${field}`);
  return rate;
}

/** Strict: a JSON object with string bid > 0, string ask >= bid, ISO UTC observedAt. */
export function parseFeedResponse(text: string): FeedRate {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RateFeedResponseError('rate feed: body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RateFeedResponseError('rate feed: body is not an object');
  const { bid: rawBid, ask: rawAsk, observedAt: rawObservedAt } = body as Record<string, unknown>;
  const bid = parseFeedRate(rawBid, 'bid');
  const ask = parseFeedRate(rawAsk, 'ask');
  if (ask.lt(bid)) throw new RateFeedResponseError('rate feed: ask below bid');
  const observedAt =
    typeof rawObservedAt === 'string' && ISO_UTC_MS.test(rawObservedAt) ? new Date(rawObservedAt) : null;
  if (observedAt === null || Number.isNaN(observedAt.getTime()))
    throw new RateFeedResponseError('rate feed: bad observedAt');
  return { bid, ask, observedAt };
}

async function readBodyBounded(response: Response, bytesMax: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > bytesMax) {
      await reader.cancel();
      throw new RateFeedResponseError(`rate feed: body over ${bytesMax} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface HttpRateFeedOptions {
  url: string;
  timeoutMs: number;
  /** How long a fetched rate answers again without a request (0: every quote fetches). */
  reuseMs: number;
  logger: Logger;
  fetchImpl?: typeof fetch;
  nowMs?: () => number;
}

interface FetchedRate {
  rate: FeedRate;
  /** When the request that brought it started: its age is never understated. */
  requestedAtMs: number;
}

export class HttpRateFeed implements RateFeed {
  private readonly breaker: CircuitBreaker<[], FeedRate>;
  private readonly fetchImpl: typeof fetch;
  private readonly nowMs: () => number;
  private lastFetched: FetchedRate | null = null;
  private inFlight: Promise<FeedRate | null> | null = null;

  constructor(private readonly options: HttpRateFeedOptions) {
    this.fetchImpl = options.fetchImpl ?? fetch;
    this.nowMs = options.nowMs ?? Date.now;
    this.breaker = new CircuitBreaker(() => this.fetchOnce(), {
      name: 'rate-feed',
      timeout: false, // the fetch's own abort signal bounds each call, body included
      errorThresholdPercentage: BREAKER_ERROR_THRESHOLD_PERCENT,
      resetTimeout: BREAKER_RESET_TIMEOUT_MS,
      volumeThreshold: BREAKER_VOLUME_THRESHOLD,
    });
    this.breaker.on('open', () => options.logger.warn('circuit breaker opened', { upstream: 'rate-feed' }));
    this.breaker.on('close', () => options.logger.info('circuit breaker closed', { upstream: 'rate-feed' }));
    observeBreaker(this.breaker, 'rate-feed');
  }

  /**
   * The market rate, or null when the feed failed, answered nonsense or the breaker is open:
   * the last fetched rate while it is younger than reuseMs, else the fetch under way, else a new one.
   */
  latest(_partnerId: string): Promise<FeedRate | null> {
    const last = this.lastFetched;
    if (last !== null && this.nowMs() - last.requestedAtMs < this.options.reuseMs) return Promise.resolve(last.rate);
    this.inFlight ??= this.fetchShared().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** One market rate for every partner: fetched (or reused) once, whatever their number. */
  async latestFor(partnerIds: readonly string[]): Promise<Map<string, FeedRate | null>> {
    const rate = await this.latest('');
    return new Map(partnerIds.map((partnerId) => [partnerId, rate]));
  }

  shutdown(): void {
    this.breaker.shutdown();
  }

  private async fetchShared(): Promise<FeedRate | null> {
    const requestedAtMs = this.nowMs();
    try {
      const rate = await this.breaker.fire();
      this.lastFetched = { rate, requestedAtMs };
      return rate;
    } catch (error) {
      this.options.logger.warn('rate feed unavailable', { upstream: 'rate-feed', error: (error as Error).message });
      return null;
    }
  }

  private async fetchOnce(): Promise<FeedRate> {
    const response = await this.fetchImpl(this.options.url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new RateFeedResponseError(`rate feed answered HTTP ${response.status}`);
    }
    return parseFeedResponse(await readBodyBounded(response, RATE_FEED_BODY_BYTES_MAX));
  }
}
