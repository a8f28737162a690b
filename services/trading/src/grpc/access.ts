/**
 * Who may call each trading RPC (service identities, spiffe://platform/<name>),
 * enforced by @platform/grpc before any handler runs. The gateway reaches the
 * partner-facing quote and order use cases and the sandbox rate; switches,
 * partner status and pricing belong to `ops`; the daily cap and sell orders'
 * proceeds to payouts (trading never calls payouts back). Nothing here admits
 * the ledger: trading calls it, never the reverse (TradingDeposits, deprecated,
 * is not served). Amend an entry when a caller starts or stops calling.
 */
import type { AccessTable } from '@platform/grpc';
import type { trading } from '@platform/proto';

export const TRADING_ACCESS = {
  // createQuotes: the gateway's coalesced quotes, each item priced for its own partner.
  TRADING: { createQuote: ['gateway'], createQuotes: ['gateway'] } satisfies AccessTable<typeof trading.TradingService>,
  TRADING_ADMIN: { configurePartner: ['ops'] } satisfies AccessTable<typeof trading.TradingAdminService>,
  TRADING_SANDBOX: { setSandboxRate: ['gateway'] } satisfies AccessTable<typeof trading.TradingSandboxService>,
  TRADING_LIMITS: {
    reserveDailyCap: ['payouts'],
    releaseDailyCap: ['payouts'],
    // Read by the cap's users and by operators looking at a partner.
    getPartnerLimits: ['payouts', 'ops'],
  } satisfies AccessTable<typeof trading.TradingLimitsService>,
  // Payouts claims due proceeds and reports each payout's outcome; no one else moves a sell order's payout.
  TRADING_SELL_PROCEEDS: {
    claimDueSellProceeds: ['payouts'],
    recordSellProceedsOutcome: ['payouts'],
  } satisfies AccessTable<typeof trading.TradingSellProceedsService>,
  TRADING_ORDERS: {
    createBuyOrder: ['gateway'],
    createSellOrder: ['gateway'],
    getOrder: ['gateway'],
    // The gateway's coalesced GetOrder reads; each item is checked against its own partner.
    getOrders: ['gateway'],
    attachTxHash: ['gateway'],
    listOrders: ['gateway'],
  } satisfies AccessTable<typeof trading.TradingOrdersService>,
  TRADING_OPERATOR: {
    setPartnerStatus: ['ops'],
    setPlatformSwitch: ['ops'],
    listAuditRecords: ['ops'],
  } satisfies AccessTable<typeof trading.TradingOperatorService>,
} as const;
