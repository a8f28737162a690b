// Proves trading's configuration fails fast: production demands the real rate
// feed, the http feed demands a URL, the sandbox tick must be faster than the
// staleness limit; and that the defaults are the documented ones.
import { loadConfig } from '@platform/config';
import { configSchema, configuredQuoteLifetimeMs, rateFeedConfig } from './config';

const base = {
  DATABASE_URL: 'postgres://u:p@localhost:5432/svc_trading',
  PLATFORM_MODE: 'sandbox',
  TLS_CA_FILE: '/tls/ca.pem',
  TLS_CERT_FILE: '/tls/trading.pem',
  TLS_KEY_FILE: '/tls/trading-key.pem',
  GRPC_PORT: '7001',
  AMQP_URL: 'amqp://localhost:5672',
  LEDGER_GRPC_ADDR: 'localhost:7002',
  WALLET_REGISTRY_GRPC_ADDR: 'localhost:7003',
};

describe('trading config', () => {
  it('defaults to the sandbox feed with the documented values', () => {
    const config = loadConfig(configSchema, base);
    expect(rateFeedConfig(config)).toEqual({ kind: 'sandbox', midKes: '129.50', spreadBps: 50, tickMs: 1_000 });
    expect(config.RATE_STALENESS_LIMIT_MS).toBe(60_000);
    expect(config.QUOTE_TTL_MS).toBe(30_000);
    expect(config.SETTLEMENT_ESTIMATE_SECONDS).toBe(60);
    expect(configuredQuoteLifetimeMs(config)).toBe(30_000);
  });

  it('scales the quote lifetime in sandbox mode only', () => {
    expect(configuredQuoteLifetimeMs(loadConfig(configSchema, { ...base, SANDBOX_TIME_SCALE: '0.05' }))).toBe(1_500);
    const production = loadConfig(configSchema, {
      ...base,
      PLATFORM_MODE: 'production',
      SANDBOX_TIME_SCALE: '0.05',
      RATE_FEED: 'http',
      RATE_FEED_URL: 'https://feed.example/rate',
    });
    expect(configuredQuoteLifetimeMs(production)).toBe(30_000);
    expect(rateFeedConfig(production)).toEqual({
      kind: 'http',
      url: 'https://feed.example/rate',
      timeoutMs: 2_000,
      reuseMs: 250,
    });
  });

  it('refuses the sandbox feed in production', () => {
    expect(() => loadConfig(configSchema, { ...base, PLATFORM_MODE: 'production' })).toThrow(
      /RATE_FEED: must be "http"/,
    );
  });

  it('refuses the http feed without a URL', () => {
    expect(() => loadConfig(configSchema, { ...base, RATE_FEED: 'http' })).toThrow(/RATE_FEED_URL/);
    expect(() => loadConfig(configSchema, { ...base, RATE_FEED: 'http', RATE_FEED_URL: 'ftp://x' })).toThrow(
      /RATE_FEED_URL/,
    );
  });

  it('refuses a sandbox tick that would let the rate go stale between ticks', () => {
    expect(() => loadConfig(configSchema, { ...base, RATE_TICK_MS: '3000', RATE_STALENESS_LIMIT_MS: '3000' })).toThrow(
      /RATE_TICK_MS/,
    );
    expect(
      loadConfig(configSchema, { ...base, RATE_TICK_MS: '250', RATE_STALENESS_LIMIT_MS: '3000' }).RATE_TICK_MS,
    ).toBe(250);
  });

  it("bounds the http feed's reuse below the staleness limit and at most 5 s", () => {
    const http = { ...base, RATE_FEED: 'http', RATE_FEED_URL: 'https://feed.example/rate' };
    expect(() =>
      loadConfig(configSchema, { ...http, RATE_FEED_REUSE_MS: '3000', RATE_STALENESS_LIMIT_MS: '3000' }),
    ).toThrow(/RATE_FEED_REUSE_MS/);
    expect(() => loadConfig(configSchema, { ...http, RATE_FEED_REUSE_MS: '5001' })).toThrow(/RATE_FEED_REUSE_MS/);
    expect(() => loadConfig(configSchema, { ...http, RATE_FEED_REUSE_MS: '-1' })).toThrow(/RATE_FEED_REUSE_MS/);
    expect(loadConfig(configSchema, { ...http, RATE_FEED_REUSE_MS: '0' }).RATE_FEED_REUSE_MS).toBe(0);
  });

  it('refuses a malformed mid or spread', () => {
    expect(() => loadConfig(configSchema, { ...base, RATE_SANDBOX_MID_KES: '129.12345' })).toThrow(
      /RATE_SANDBOX_MID_KES/,
    );
    expect(() => loadConfig(configSchema, { ...base, RATE_SANDBOX_MID_KES: '0' })).toThrow(/RATE_SANDBOX_MID_KES/);
    expect(() => loadConfig(configSchema, { ...base, RATE_SANDBOX_SPREAD_BPS: '2001' })).toThrow(
      /RATE_SANDBOX_SPREAD_BPS/,
    );
  });
});
