// Proves the service's configuration: defaults for every knob, and refusal of
// a missing key or a lease too short to outlast one attempt.
import { loadConfig } from '@platform/config';
import { configSchema, deliveryRetentionDays } from './config';
import { LATE_EVENT_FILED_WITHIN_DAYS } from './persistence/deliveries.repository';

const minimal = {
  DATABASE_URL: 'postgres://u:p@localhost:5432/svc_webhook_delivery',
  PLATFORM_MODE: 'sandbox',
  TLS_CA_FILE: '/tls/ca.pem',
  TLS_CERT_FILE: '/tls/webhook-delivery.pem',
  TLS_KEY_FILE: '/tls/webhook-delivery-key.pem',
  GRPC_PORT: '7007',
  AMQP_URL: 'amqp://u:p@localhost:5672/',
  WEBHOOK_SECRET_ENCRYPTION_KEY: 'ab'.repeat(32),
};

describe('webhook-delivery config', () => {
  it('applies the documented defaults', () => {
    expect(loadConfig(configSchema, minimal)).toMatchObject({
      METRICS_PORT: 9107,
      CONSUMER_PREFETCH: 256,
      CONSUMER_BATCH_SIZE: 128,
      SCHEDULER_POLL_MS: 250,
      SCHEDULER_BATCH_SIZE: 32,
      DELIVERY_LEASE_MS: 60_000,
      ENDPOINT_IN_FLIGHT_MAX: 4,
      ATTEMPTS_IN_FLIGHT_MAX: 64,
      SANDBOX_TIME_SCALE: 1,
      EVENT_FEED_RETENTION_DAYS: 30,
      FEED_POSITION_POLL_MS: 500,
      FEED_POSITION_BATCH_SIZE: 500,
      PARTNER_RETRIES_PER_MINUTE: 10,
    });
  });

  it('refuses a feed retention below the 30 days partners are promised', () => {
    expect(() => loadConfig(configSchema, { ...minimal, EVENT_FEED_RETENTION_DAYS: '29' })).toThrow(
      /EVENT_FEED_RETENTION_DAYS/,
    );
    expect(loadConfig(configSchema, { ...minimal, EVENT_FEED_RETENTION_DAYS: '90' }).EVENT_FEED_RETENTION_DAYS).toBe(
      90,
    );
  });

  it('names every bad variable', () => {
    expect(() =>
      loadConfig(configSchema, {
        ...minimal,
        AMQP_URL: 'http://x',
        WEBHOOK_SECRET_ENCRYPTION_KEY: undefined,
        DELIVERY_LEASE_MS: '5000',
        METRICS_PORT: '0',
      }),
    ).toThrow(/AMQP_URL[\s\S]*WEBHOOK_SECRET_ENCRYPTION_KEY[\s\S]*METRICS_PORT[\s\S]*DELIVERY_LEASE_MS/);
  });

  it('keeps finished deliveries a month beyond the feed unless told, and never less than a week beyond it', () => {
    expect(deliveryRetentionDays(loadConfig(configSchema, minimal))).toBe(60);
    expect(deliveryRetentionDays(loadConfig(configSchema, { ...minimal, EVENT_FEED_RETENTION_DAYS: '90' }))).toBe(120);
    expect(deliveryRetentionDays(loadConfig(configSchema, { ...minimal, DELIVERY_RETENTION_DAYS: '37' }))).toBe(37);
    expect(() => loadConfig(configSchema, { ...minimal, DELIVERY_RETENTION_DAYS: '36' })).toThrow(
      /DELIVERY_RETENTION_DAYS/,
    );
  });

  it('never drops the week a late event is filed in: the shortest delivery window allowed is a day longer than its floor', () => {
    const shortest = deliveryRetentionDays(
      loadConfig(configSchema, { ...minimal, DELIVERY_RETENTION_DAYS: String(LATE_EVENT_FILED_WITHIN_DAYS + 1) }),
    );
    expect(shortest).toBe(LATE_EVENT_FILED_WITHIN_DAYS + 1);
    expect(() =>
      loadConfig(configSchema, { ...minimal, DELIVERY_RETENTION_DAYS: String(LATE_EVENT_FILED_WITHIN_DAYS) }),
    ).toThrow(/DELIVERY_RETENTION_DAYS/);
  });
});
