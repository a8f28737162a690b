/** Entry point: config → dependencies → gRPC server (operator plane) → HTTP (partner plane) → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import type { Server } from 'node:http';
import { bootService } from '@platform/grpc';
import { CredentialRevocations } from './adapters/credential-revocations';
import { checkNoEviction, closeRedis, connectRedis } from './adapters/redis';
import { RedisRequestAdmission } from './adapters/redis-admission';
import { StoreReadiness } from './adapters/readiness';
import { CachedUpstreamHealth } from './adapters/upstream-health';
import { coalescedOrderReads, coalescedQuotes } from './adapters/coalesced-trading';
import { createUpstreams } from './adapters/upstreams';
import { readConfig } from './config';
import { apiKeyPattern, keyModeFor } from './domain/credential-tokens';
import { RefusedAuthentications } from './domain/refused-authentications';
import { createApp } from './http/app';
import { GatewayMetrics } from './http/gateway-metrics';
import { drainHttp, listenHttp } from './http/http-server';
import { CachedCredentialLookup } from './persistence/credential-lookup';
import { CredentialsRepository } from './persistence/credentials.repository';
import { gatewayDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';
import { readServiceVersion } from './version';

bootService({
  service: SERVICE_NAME,
  readConfig,
  dataSource: gatewayDataSource,
  start: async ({ config, logger, tls, dataSource }) => {
    const keyMode = keyModeFor(config.PLATFORM_MODE);
    const redis = await connectRedis(config.REDIS_URL, logger);
    await checkNoEviction(redis, logger);
    const upstreams = createUpstreams(
      {
        tradingAddress: config.TRADING_GRPC_ADDR,
        ledgerAddress: config.LEDGER_GRPC_ADDR,
        walletRegistryAddress: config.WALLET_REGISTRY_GRPC_ADDR,
        notifierAddress: config.NOTIFIER_GRPC_ADDR,
        collectionsAddress: config.COLLECTIONS_GRPC_ADDR,
        payoutsAddress: config.PAYOUTS_GRPC_ADDR,
        webhookDeliveryAddress: config.WEBHOOK_DELIVERY_GRPC_ADDR,
        deadlineMs: config.UPSTREAM_DEADLINE_MS,
      },
      tls,
      logger,
    );
    const credentials = new CachedCredentialLookup(
      new CredentialsRepository(dataSource),
      config.CREDENTIAL_ENCRYPTION_KEY,
      logger,
    );
    const revocations = await CredentialRevocations.start(
      config.REDIS_URL,
      redis,
      credentials,
      logger.child({ context: 'CredentialRevocations' }),
    );

    const readiness = new StoreReadiness(redis, dataSource);
    const tradingBatches = {
      batchItemsMax: config.TRADING_BATCH_ITEMS_MAX,
      windowMs: config.TRADING_BATCH_WINDOW_MS,
      deadlineMs: config.UPSTREAM_DEADLINE_MS,
    };
    const server = createServer({
      dataSource,
      logger,
      tls,
      keyMode,
      sealingKeys: config.CREDENTIAL_ENCRYPTION_KEY,
      rateLimitPerMinuteDefault: config.RATE_LIMIT_PER_MINUTE_DEFAULT,
      onCredentialRevoked: async (apiKey) => {
        credentials.forget(apiKey);
        await revocations.publish(apiKey);
      },
    });
    const app = createApp({
      logger,
      mode: config.PLATFORM_MODE,
      version: readServiceVersion(),
      apiKeyPattern: apiKeyPattern(keyMode),
      credentials,
      admission: new RedisRequestAdmission(redis, logger),
      refusedAuthentications: new RefusedAuthentications(config.AUTH_REFUSALS_PER_MINUTE_PER_ADDRESS),
      trustedProxyHops: config.TRUSTED_PROXY_HOPS,
      // TRADING_BATCH_ITEMS_MAX=0 leaves each read and quote its own call (a trading without the batch RPCs).
      trading:
        tradingBatches.batchItemsMax === 0
          ? upstreams.trading
          : {
              ...upstreams.trading,
              getOrder: coalescedOrderReads(upstreams.trading, tradingBatches, logger),
              createQuote: coalescedQuotes(upstreams.trading, tradingBatches, logger),
            },
      ledger: upstreams.ledger,
      walletRegistry: upstreams.walletRegistry,
      notifier: upstreams.notifier,
      collections: upstreams.collections,
      payouts: upstreams.payouts,
      webhookDelivery: upstreams.webhookDelivery,
      upstreamHealth: new CachedUpstreamHealth(
        [
          { name: 'trading', client: upstreams.trading },
          { name: 'ledger', client: upstreams.ledger },
          { name: 'wallet-registry', client: upstreams.walletRegistry },
          { name: 'notifier', client: upstreams.notifier },
          { name: 'collections', client: upstreams.collections },
          { name: 'payouts', client: upstreams.payouts },
        ],
        logger,
      ),
      readiness,
      metrics: new GatewayMetrics(),
    });

    let httpServer: Server | undefined;
    return {
      server,
      startExtra: async () => {
        httpServer = await listenHttp(app, config.HTTP_PORT, logger, config.HTTP_HOST, config.HTTP_REUSE_PORT);
      },
      drain: () => drainHttp(httpServer, readiness, config.SHUTDOWN_GRACE_MS),
      stop: async () => {
        upstreams.close();
        await revocations.close();
        await closeRedis(redis);
      },
    };
  },
});
