/**
 * Entry point: config → dependencies → consumer, scheduler and reconciler →
 * gRPC server → metrics endpoint and listen → drain on SIGTERM. The queues are declared and consumed before the
 * service reports SERVING, so producers never publish into an unbound exchange.
 */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { AmqpConnection } from '@platform/events';
import { bootService } from '@platform/grpc';
import { Logger } from '@platform/logger';
import { DataSource, dueRowsProbe } from '@platform/persistence';
import { HttpsWebhookSender } from './adapters/https-webhook-sender';
import { Config, deliveryRetentionDays, readConfig } from './config';
import { DeliveryMetrics } from './metrics/delivery-metrics';
import { SERVICE_NAME, webhookDeliveryDataSource } from './persistence/data-source';
import { DeliveriesRepository } from './persistence/deliveries.repository';
import { EndpointsRepository } from './persistence/endpoints.repository';
import { EventFeedRepository } from './persistence/event-feed.repository';
import { createServer } from './server';
import { AcceptEventUseCase } from './usecases/accept-event/accept-event.usecase';
import { BatchedAttemptRecorder } from './usecases/attempt-delivery/attempt-recorder';
import { AttemptDeliveryUseCase } from './usecases/attempt-delivery/attempt-delivery.usecase';
import { DeliveryReconciler } from './workers/delivery.reconciler';
import { DeliveryScheduler } from './workers/delivery.scheduler';
import { FeedPositioner } from './workers/feed.positioner';
import { webhookDeliveryRetentionRules } from './workers/retention.worker';
import { createPartnerEventsConsumer } from './workers/partner-events.consumer';

/** Kept back from the grace period for closing connections after attempts drain. */
const SHUTDOWN_RESERVE_MS = 1_500;

function createWorkers(
  config: Config,
  dataSource: DataSource,
  amqp: AmqpConnection,
  logger: Logger,
  metrics: DeliveryMetrics,
) {
  const endpoints = new EndpointsRepository(dataSource);
  const deliveries = new DeliveriesRepository(dataSource);
  metrics.scheduler.watchDue(dueRowsProbe(dataSource, deliveries.dueRows));
  const attemptDelivery = new AttemptDeliveryUseCase({
    recorder: new BatchedAttemptRecorder(deliveries),
    sender: new HttpsWebhookSender({
      mode: config.PLATFORM_MODE,
      idleConnectionsPerPoolMax: config.ATTEMPTS_IN_FLIGHT_MAX,
    }),
    sealingKeys: config.WEBHOOK_SECRET_ENCRYPTION_KEY,
    timeScale: config.SANDBOX_TIME_SCALE,
    logger: logger.child({ context: 'AttemptDelivery' }),
    metrics,
  });
  const scheduler = new DeliveryScheduler(
    deliveries,
    attemptDelivery,
    logger.child({ context: 'DeliveryScheduler' }),
    {
      pollIntervalMs: config.SCHEDULER_POLL_MS,
      batchSize: config.SCHEDULER_BATCH_SIZE,
      attemptsInFlightMax: config.ATTEMPTS_IN_FLIGHT_MAX,
      endpointInFlightMax: config.ENDPOINT_IN_FLIGHT_MAX,
      leaseMs: config.DELIVERY_LEASE_MS,
    },
    metrics,
  );
  const feed = new EventFeedRepository(dataSource);
  const reconciler = new DeliveryReconciler(
    deliveries,
    feed,
    metrics,
    logger.child({ context: 'DeliveryReconciler' }),
    {
      intervalMs: config.RECONCILE_INTERVAL_MS,
      overdueMs: config.DELIVERY_OVERDUE_MS,
    },
    () => scheduler.kick(),
  );
  const positioner = new FeedPositioner(
    feed,
    logger.child({ context: 'FeedPositioner' }),
    {
      pollIntervalMs: config.FEED_POSITION_POLL_MS,
      batchSize: config.FEED_POSITION_BATCH_SIZE,
    },
    () => scheduler.kick(),
  );
  const consumer = createPartnerEventsConsumer({
    amqp,
    logger: logger.child({ context: 'PartnerEventsConsumer' }),
    prefetch: config.CONSUMER_PREFETCH,
    batchSizeMax: config.CONSUMER_BATCH_SIZE,
    acceptEvent: new AcceptEventUseCase({
      endpoints,
      deliveries,
      metrics,
      logger: logger.child({ context: 'AcceptEvent' }),
    }),
    onDeliveryCreated: () => scheduler.kick(),
    onDeliveryRecorded: () => positioner.kick(),
  });
  return { scheduler, consumer, reconciler, positioner };
}

bootService({
  service: SERVICE_NAME,
  readConfig,
  dataSource: webhookDeliveryDataSource,
  retention: (config) =>
    webhookDeliveryRetentionRules({
      deliveryRetentionDays: deliveryRetentionDays(config),
      partitionsAheadWeeks: config.DELIVERY_PARTITIONS_AHEAD_WEEKS,
    }),
  start: async ({ config, logger, tls, dataSource }) => {
    const amqp = new AmqpConnection(config.AMQP_URL, logger.child({ context: 'Amqp' }));
    const metrics = new DeliveryMetrics();
    const { scheduler, consumer, reconciler, positioner } = createWorkers(config, dataSource, amqp, logger, metrics);
    scheduler.start();
    reconciler.start();
    positioner.start();
    await consumer.start();
    const server = createServer({
      dataSource,
      logger,
      tls,
      mode: config.PLATFORM_MODE,
      sealingKeys: config.WEBHOOK_SECRET_ENCRYPTION_KEY,
      metrics,
      partnerPlane: {
        retentionDays: config.EVENT_FEED_RETENTION_DAYS,
        positionBatchSize: config.FEED_POSITION_BATCH_SIZE,
        retriesPerMinute: config.PARTNER_RETRIES_PER_MINUTE,
      },
    });
    const workGraceMs = Math.max(0, config.SHUTDOWN_GRACE_MS - SHUTDOWN_RESERVE_MS);
    return {
      server,
      drain: async () => {
        // Stop taking events and stop claiming at the same time; attempts in flight
        // finish within the grace period or keep their lease for another replica.
        await Promise.all([
          consumer.stop(workGraceMs),
          scheduler.stop(workGraceMs),
          reconciler.stop(),
          positioner.stop(),
        ]);
      },
      stop: async () => {
        await amqp.close();
      },
    };
  },
});
