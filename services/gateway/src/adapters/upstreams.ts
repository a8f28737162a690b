/**
 * gRPC clients of the services behind the gateway (mutual TLS, as the gateway's
 * identity, which each service's allow-list admits to its partner-facing RPCs
 * only): one channel and one circuit
 * breaker per upstream service (its service definitions merged), every call
 * with the UPSTREAM_DEADLINE_MS deadline. A service that is down answers
 * SERVICE_UNAVAILABLE quickly (connection refused, deadline or open breaker).
 */
import { createClient, PromiseClient, TlsMaterial, withPageAnswer } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import {
  collections,
  ledger,
  notifier,
  payouts,
  payoutsFunding,
  trading,
  walletRegistry,
  webhookDeliveryPartnerFeed,
} from '@platform/proto';

/** Merges service definitions of one upstream; a method name in two of them is a programming error. */
function merge<A extends object, B extends object>(a: A, b: B): A & B {
  const clash = Object.keys(b).find((name) => name in a);
  if (clash) throw new Error(`method ${clash} is defined twice for one upstream`);
  return { ...a, ...b };
}

const tradingDefinition = merge(
  merge(trading.TradingService, trading.TradingSandboxService),
  trading.TradingOrdersService,
);
// The pages are read as views of the frame they came in (pageAnswerCodec), not copied out of it.
const ledgerDefinition = merge(
  withPageAnswer(ledger.LedgerService, 'listStatement', ledger.ListStatementResponse, 'pageJson', 'read'),
  ledger.LedgerSandboxService,
);
const walletRegistryDefinition = merge(
  walletRegistry.WalletRegistryService,
  walletRegistry.WalletRegistrySandboxService,
);
const notifierDefinition = notifier.NotifierSandboxService;
const collectionsDefinition = merge(collections.CollectionsService, collections.CollectionsSandboxService);
const payoutsDefinition = merge(
  merge(merge(payouts.TransfersService, payouts.UsdtSendsService), payouts.TransferBatchesService),
  merge(payoutsFunding.MobileMoneyFundingService, payoutsFunding.MobileMoneyFundingSandboxService),
);

/** Webhook delivery's partner RPCs only; its operator RPCs admit `ops` alone. */
const webhookDeliveryDefinition = withPageAnswer(
  webhookDeliveryPartnerFeed.WebhookPartnerService,
  'listEvents',
  webhookDeliveryPartnerFeed.ListEventsResponse,
  'pageJson',
  'read',
);

export type TradingClient = PromiseClient<typeof tradingDefinition>;
export type LedgerClient = PromiseClient<typeof ledgerDefinition>;
export type WalletRegistryClient = PromiseClient<typeof walletRegistryDefinition>;
export type NotifierClient = PromiseClient<typeof notifierDefinition>;
export type CollectionsClient = PromiseClient<typeof collectionsDefinition>;
export type PayoutsClient = PromiseClient<typeof payoutsDefinition>;
export type WebhookDeliveryClient = PromiseClient<typeof webhookDeliveryDefinition>;

export interface Upstreams {
  trading: TradingClient;
  ledger: LedgerClient;
  walletRegistry: WalletRegistryClient;
  notifier: NotifierClient;
  collections: CollectionsClient;
  payouts: PayoutsClient;
  webhookDelivery: WebhookDeliveryClient;
  close(): void;
}

export interface UpstreamSettings {
  tradingAddress: string;
  ledgerAddress: string;
  walletRegistryAddress: string;
  notifierAddress: string;
  collectionsAddress: string;
  payoutsAddress: string;
  webhookDeliveryAddress: string;
  deadlineMs: number;
}

/** Each upstream is reached as the gateway's identity, and must present its own. */
export function createUpstreams(settings: UpstreamSettings, tls: TlsMaterial, logger: Logger): Upstreams {
  const tradingClient = createClient(tradingDefinition, {
    upstream: 'trading',
    tls: tls.client('trading'),
    address: settings.tradingAddress,
    logger,
    deadlineMs: settings.deadlineMs,
  });
  const ledgerClient = createClient(ledgerDefinition, {
    upstream: 'ledger',
    tls: tls.client('ledger'),
    address: settings.ledgerAddress,
    logger,
    deadlineMs: settings.deadlineMs,
  });
  const walletRegistryClient = createClient(walletRegistryDefinition, {
    upstream: 'wallet-registry',
    tls: tls.client('wallet-registry'),
    address: settings.walletRegistryAddress,
    logger,
    deadlineMs: settings.deadlineMs,
  });
  const notifierClient = createClient(notifierDefinition, {
    upstream: 'notifier',
    tls: tls.client('notifier'),
    address: settings.notifierAddress,
    logger,
    deadlineMs: settings.deadlineMs,
  });
  const collectionsClient = createClient(collectionsDefinition, {
    upstream: 'collections',
    tls: tls.client('collections'),
    address: settings.collectionsAddress,
    logger,
    deadlineMs: settings.deadlineMs,
  });
  const payoutsClient = createClient(payoutsDefinition, {
    upstream: 'payouts',
    tls: tls.client('payouts'),
    address: settings.payoutsAddress,
    logger,
    deadlineMs: settings.deadlineMs,
  });
  const webhookDeliveryClient = createClient(webhookDeliveryDefinition, {
    upstream: 'webhook-delivery',
    tls: tls.client('webhook-delivery'),
    address: settings.webhookDeliveryAddress,
    logger,
    deadlineMs: settings.deadlineMs,
  });
  return {
    trading: tradingClient,
    ledger: ledgerClient,
    walletRegistry: walletRegistryClient,
    notifier: notifierClient,
    collections: collectionsClient,
    payouts: payoutsClient,
    webhookDelivery: webhookDeliveryClient,
    close() {
      tradingClient.close();
      ledgerClient.close();
      walletRegistryClient.close();
      notifierClient.close();
      collectionsClient.close();
      payoutsClient.close();
      webhookDeliveryClient.close();
    },
  };
}
