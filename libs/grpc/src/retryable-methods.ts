/**
 * The calls a client may send again, on another replica, when the first attempt
 * fails with UNAVAILABLE (the replica went away, was draining, or could not
 * reach its own store). Only two kinds qualify:
 *
 * - reads: they change nothing;
 * - writes keyed by an id the caller made, whose repeat with the same id and
 *   body answers the original instead of doing the work again.
 *
 * A write missing here is not safe to repeat blindly: its first attempt may
 * have taken effect before the connection broke, and a repeat would either do
 * it twice or answer a refusal for what succeeded. Partner creates (transfers,
 * USDT sends, batches, orders, collections) are left to the partner, who
 * repeats them with the same idempotency key. Calls that never reached a server
 * (refused connection, GOAWAY before the stream started) are retried by
 * grpc-js whatever this table says.
 *
 * Keyed by gRPC path, `/<proto package>.<service>/<method>`; a unit spec checks
 * that every path names an RPC of proto/.
 */
export const RETRYABLE_METHODS: Readonly<Record<string, string>> = Object.freeze({
  // ledger
  '/ledger.v1.Ledger/GetPartnerAccounts': 'read',
  '/ledger.v1.Ledger/GetBalances': 'read',
  '/ledger.v1.Ledger/GetHold': 'read',
  '/ledger.v1.Ledger/ListOwnedHolds': 'read',
  '/ledger.v1.Ledger/GetServiceAccount': 'read',
  '/ledger.v1.Ledger/ListAccountHistory': 'read',
  '/ledger.v1.Ledger/CheckLedger': 'read',
  '/ledger.v1.Ledger/GetFundingInstructions': 'read',
  '/ledger.v1.Ledger/GetPayoutDestination': 'read',
  '/ledger.v1.Ledger/ListPayoutDestinations': 'read',
  '/ledger.v1.Ledger/ListCreditsByReference': 'read',
  '/ledger.v1.Ledger/ListAuditRecords': 'read',
  '/ledger.v1.Ledger/OpenPartnerAccounts': 'idempotent on partner_id',
  '/ledger.v1.Ledger/AllocateDepositAddress': 'idempotent: a partner that has an address keeps it',
  '/ledger.v1.Ledger/PlaceHold': 'idempotent on hold_id (same id and body answers the original hold)',
  '/ledger.v1.Ledger/PostEntry': 'idempotent on entry_id (same id and body answers the original entry)',
  '/ledger.v1.Ledger/RecordKesCredit': 'idempotent on bank_transaction_id',
  '/ledger.v1.Ledger/RegisterPaymentReference': 'idempotent: the same triple answers the original',
  '/ledger.v1.Ledger/ExpectUsdtDeposit':
    'idempotent on order_id: the same registration answers the current state, a claim it made included',
  // trading
  '/trading.v1.TradingOrders/GetOrder': 'read',
  '/trading.v1.TradingOrders/GetOrders': 'read',
  '/trading.v1.TradingOrders/ListOrders': 'read',
  '/trading.v1.TradingLimits/GetPartnerLimits': 'read',
  '/trading.v1.TradingLimits/ReserveDailyCap': 'idempotent on usage_id',
  '/trading.v1.TradingOperator/ListAuditRecords': 'read',
  '/trading.v1.TradingSellProceeds/RecordSellProceedsOutcome':
    'idempotent on order_id: a repeat finds the order moved and changes nothing',
  // payouts
  '/payouts.v1.OrderPayouts/GetPayoutInstruction': 'read',
  '/payouts.v1.OrderPayouts/PayOrderProceeds': 'idempotent on instruction_id',
  '/payouts.v1.Transfers/GetTransfer': 'read',
  '/payouts.v1.Transfers/ListTransfers': 'read',
  '/payouts.v1.UsdtSends/GetUsdtSend': 'read',
  '/payouts.v1.TransferBatches/GetTransferBatch': 'read',
  '/payouts.v1.PayoutsOperator/ListStuckInstructions': 'read',
  // wallet-registry
  '/wallet_registry.v1.WalletRegistry/ListAdmins': 'read',
  '/wallet_registry.v1.WalletRegistry/ListWallets': 'read',
  '/wallet_registry.v1.WalletRegistry/GetWalletStatus': 'read',
  '/wallet_registry.v1.WalletRegistry/GetCodeRecipient': 'read',
  '/wallet_registry.v1.WalletRegistryAdmin/ListAuditRecords': 'read',
  // collections
  '/collections.v1.Collections/GetCollection': 'read',
  '/collections.v1.Collections/ListCollections': 'read',
  '/collections.v1.CollectionsAdmin/ListAuditRecords': 'read',
  // notifier
  '/notifier.v1.Notifier/SendMessage': 'idempotent on idempotency_key (a repeat answers the message sent)',
  '/notifier.v1.NotifierSandbox/ListSandboxOutbox': 'read',
  // gateway and webhook-delivery (operator calls)
  '/gateway.v1.PartnerAdmin/GetPartner': 'read',
  '/gateway.v1.PartnerAdmin/ListAuditRecords': 'read',
  '/webhook_delivery.v1.WebhookAdmin/ListDeliveries': 'read',
  '/webhook_delivery.v1.WebhookAdmin/ListAuditRecords': 'read',
});
