/**
 * gRPC clients of the services behind the gateway: one channel and one circuit
 * breaker per upstream service (its service definitions merged), every call
 * with the UPSTREAM_DEADLINE_MS deadline. A service that is down answers
 * SERVICE_UNAVAILABLE quickly (connection refused, deadline or open breaker).
 */
import { createClient, PromiseClient } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { ledger, trading } from '@platform/proto';

/** Merges service definitions of one upstream; a method name in two of them is a programming error. */
function merge<A extends object, B extends object>(a: A, b: B): A & B {
  const clash = Object.keys(b).find((name) => name in a);
  if (clash) throw new Error(`method ${clash} is defined twice for one upstream`);
  return { ...a, ...b };
}

const tradingDefinition = merge(trading.TradingService, trading.TradingSandboxService);
const ledgerDefinition = merge(ledger.LedgerService, ledger.LedgerSandboxService);

export type TradingClient = PromiseClient<typeof tradingDefinition>;
export type LedgerClient = PromiseClient<typeof ledgerDefinition>;

export interface Upstreams {
  trading: TradingClient;
  ledger: LedgerClient;
  close(): void;
}

export function createUpstreams(settings: { tradingAddress: string; ledgerAddress: string; deadlineMs: number }, logger: Logger): Upstreams {
  const tradingClient = createClient(tradingDefinition, { upstream: 'trading', address: settings.tradingAddress, logger, deadlineMs: settings.deadlineMs });
  const ledgerClient = createClient(ledgerDefinition, { upstream: 'ledger', address: settings.ledgerAddress, logger, deadlineMs: settings.deadlineMs });
  return {
    trading: tradingClient,
    ledger: ledgerClient,
    close() {
      tradingClient.close();
      ledgerClient.close();
    },
  };
}
