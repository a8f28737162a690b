// Proves the HTTP feed parses strictly (anything malformed is "no rate"), is
// bounded in time and size, and stops calling a failing feed once its breaker
// opens. fetch is replaced at the edge; no server is started.
import { createLogger } from '@platform/logger';
import { HttpRateFeed, parseFeedResponse, RATE_FEED_BODY_BYTES_MAX } from './http-rate-feed';

function silentLogger() {
  const logger = createLogger('test');
  logger.silent = true;
  return logger;
}

const logger = silentLogger();
const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const good = { bid: '128.12345678', ask: '130.9876', observedAt: '2024-11-21T08:00:00.123Z' };

describe('parseFeedResponse', () => {
  it('reads decimal strings and an ISO UTC timestamp', () => {
    const rate = parseFeedResponse(JSON.stringify(good));
    expect(rate.bid.toString()).toBe('128.12345678');
    expect(rate.ask.toString()).toBe('130.9876');
    expect(rate.observedAt.toISOString()).toBe('2024-11-21T08:00:00.123Z');
  });

  it.each([
    ['not json'],
    ['[]'],
    ['null'],
    [JSON.stringify({ ...good, bid: 128.1 })],
    [JSON.stringify({ ...good, bid: '0' })],
    [JSON.stringify({ ...good, bid: '1e2' })],
    [JSON.stringify({ ...good, bid: '-128' })],
    [JSON.stringify({ ...good, ask: '128.0' })], // below the bid
    [JSON.stringify({ ...good, ask: '2000000' })],
    [JSON.stringify({ ...good, ask: '130.12345678901' })], // more than 10 decimals
    [JSON.stringify({ ...good, observedAt: '2024-11-21 08:00:00' })],
    [JSON.stringify({ ...good, observedAt: '2024-11-21T08:00:00.000+03:00' })],
    [JSON.stringify({ ...good, observedAt: '2024-13-41T08:00:00.000Z' })],
    [JSON.stringify({ ...good, observedAt: 1732176000000 })],
  ])('refuses %s', (text) => {
    expect(() => parseFeedResponse(text)).toThrow();
  });
});

function respond(body: string, status = 200): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json' } });
}

describe('HttpRateFeed', () => {
  /** A feed at the test URL that fetches for every call (reuseMs 0) through `fetchImpl`. */
  const fetchingFeed = (fetchImpl: typeof fetch) =>
    new HttpRateFeed({ url: 'https://feed.example/rate', timeoutMs: 1_000, reuseMs: 0, logger, fetchImpl });

  it('answers the parsed rate', async () => {
    const fetchImpl = jest.fn(async () => respond(JSON.stringify(good)));
    const feed = fetchingFeed(fetchImpl);
    expect((await feed.latest(partnerId))?.ask.toString()).toBe('130.9876');
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('https://feed.example/rate');
    expect(init.signal).toBeDefined();
    expect(init.redirect).toBe('error');
    feed.shutdown();
  });

  it('answers many partners at once with one fetch: the one market rate for each', async () => {
    const fetchImpl = jest.fn(async () => respond(JSON.stringify(good)));
    const feed = fetchingFeed(fetchImpl);
    const other = '00000000-0000-4000-8000-000000000000';
    const rates = await feed.latestFor([partnerId, other]);
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    expect([...rates.keys()]).toEqual([partnerId, other]);
    expect(rates.get(partnerId)?.ask.toString()).toBe('130.9876');
    expect(rates.get(other)).toBe(rates.get(partnerId));
    feed.shutdown();
  });

  it('answers null on an HTTP error, a malformed body or an oversized body', async () => {
    for (const response of [
      respond('{}', 500),
      respond('{"bid":"1"}'),
      respond('x'.repeat(RATE_FEED_BODY_BYTES_MAX + 1)),
    ]) {
      const feed = new HttpRateFeed({
        url: 'https://feed.example/rate',
        timeoutMs: 1_000,
        reuseMs: 0,
        logger,
        fetchImpl: async () => response,
      });
      expect(await feed.latest(partnerId)).toBeNull();
      feed.shutdown();
    }
  });

  it('answers null when the feed does not answer in time', async () => {
    const fetchImpl = (_url: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    const feed = new HttpRateFeed({
      url: 'https://feed.example/rate',
      timeoutMs: 50,
      reuseMs: 0,
      logger,
      fetchImpl: fetchImpl as typeof fetch,
    });
    const startedMs = Date.now();
    expect(await feed.latest(partnerId)).toBeNull();
    expect(Date.now() - startedMs).toBeLessThan(1_000);
    feed.shutdown();
  });

  it('stops calling a failing feed once the breaker opens', async () => {
    const fetchImpl = jest.fn(async () => {
      throw new Error('connection refused');
    });
    const feed = new HttpRateFeed({
      url: 'https://feed.example/rate',
      timeoutMs: 1_000,
      reuseMs: 0,
      logger,
      fetchImpl,
    });
    for (let i = 0; i < 20; i += 1) expect(await feed.latest(partnerId)).toBeNull();
    expect(fetchImpl.mock.calls.length).toBeLessThan(20);
    feed.shutdown();
  });

  describe('reuse and one fetch at a time', () => {
    function controlledFeed(reuseMs: number) {
      let nowMs = 1_000_000;
      const pending: Array<() => void> = [];
      const fetchImpl = jest.fn(
        () => new Promise<Response>((resolve) => pending.push(() => resolve(respond(JSON.stringify(good))))),
      );
      const feed = new HttpRateFeed({
        url: 'https://feed.example/rate',
        timeoutMs: 1_000,
        reuseMs,
        logger,
        fetchImpl,
        nowMs: () => nowMs,
      });
      const answerAll = () => pending.splice(0).forEach((answer) => answer());
      return {
        feed,
        fetchImpl,
        answerAll,
        advance: (ms: number) => {
          nowMs += ms;
        },
      };
    }

    it('answers quotes asking during a fetch with that one fetch', async () => {
      const { feed, fetchImpl, answerAll } = controlledFeed(250);
      const asked = Array.from({ length: 10 }, () => feed.latest(partnerId));
      answerAll();
      const rates = await Promise.all(asked);
      expect(fetchImpl).toHaveBeenCalledTimes(1);
      expect(rates.every((rate) => rate?.ask.toString() === '130.9876')).toBe(true);
      feed.shutdown();
    });

    it('reuses a rate for reuseMs from when its request started, then fetches again', async () => {
      const { feed, fetchImpl, answerAll, advance } = controlledFeed(250);
      const first = feed.latest(partnerId);
      advance(100); // the fetch took 100 ms: the rate is 100 ms old when it arrives
      answerAll();
      expect(await first).not.toBeNull();
      advance(149);
      expect(await feed.latest(partnerId)).not.toBeNull();
      expect(fetchImpl).toHaveBeenCalledTimes(1);
      advance(1); // 250 ms after the request started
      const again = feed.latest(partnerId);
      answerAll();
      expect(await again).not.toBeNull();
      expect(fetchImpl).toHaveBeenCalledTimes(2);
      feed.shutdown();
    });

    it('with reuseMs 0 fetches for every quote asking after the last answer', async () => {
      const { feed, fetchImpl, answerAll } = controlledFeed(0);
      for (let i = 0; i < 3; i += 1) {
        const asked = feed.latest(partnerId);
        answerAll();
        expect(await asked).not.toBeNull();
      }
      expect(fetchImpl).toHaveBeenCalledTimes(3);
      feed.shutdown();
    });

    it('never reuses a failure: the next quote fetches again', async () => {
      let fail = true;
      const fetchImpl = jest.fn(async () => (fail ? respond('{}', 503) : respond(JSON.stringify(good))));
      const feed = new HttpRateFeed({
        url: 'https://feed.example/rate',
        timeoutMs: 1_000,
        reuseMs: 60_000,
        logger,
        fetchImpl,
      });
      expect(await feed.latest(partnerId)).toBeNull();
      fail = false;
      expect((await feed.latest(partnerId))?.bid.toString()).toBe('128.12345678');
      expect(fetchImpl).toHaveBeenCalledTimes(2);
      feed.shutdown();
    });
  });
});
