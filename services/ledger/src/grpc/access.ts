/**
 * Who may call each ledger RPC (service identities, spiffe://platform/<name>),
 * enforced by @platform/grpc before any handler runs. Raw money movements
 * (holds, entries, credits) belong to the services that own the flows: never
 * the gateway, which reaches read-only partner views and the sandbox only.
 * Operator RPCs belong to `ops` alone. An RPC without a caller yet lists none.
 * Amend an entry when a caller starts or stops calling; the tests of each
 * caller fail when a call it makes is missing here.
 */
import type { AccessTable } from '@platform/grpc';
import type { ledger } from '@platform/proto';

const LEDGER = {
  openPartnerAccounts: ['ops'],
  getPartnerAccounts: ['trading', 'payouts', 'collections'],
  getBalances: ['gateway', 'trading'],
  // The inbound mobile-money credit (payouts' funding prompt); the bank's own notifications when they arrive.
  recordKesCredit: ['payouts'],
  placeHold: ['trading', 'payouts'],
  postHold: ['trading', 'payouts'],
  // Trading's settlement rounds (debit-first buys posted together).
  postHolds: ['trading'],
  voidHold: ['trading', 'payouts'],
  getHold: ['trading', 'payouts'],
  // Each owner lists only its own pending holds (the owner's service part is the caller's identity).
  listOwnedHolds: ['trading', 'payouts'],
  postEntry: ['trading', 'collections'],
  getServiceAccount: ['trading', 'payouts', 'collections'],
  listAccountHistory: ['ops'],
  // A partner's statement of its own account (GET /v1/balances/{accountId}/transactions).
  listStatement: ['gateway'],
  checkLedger: ['ops'],
  setKesAccountStatus: ['ops'],
  allocateDepositAddress: ['ops'],
  getFundingInstructions: ['gateway', 'trading'],
  addPayoutDestination: ['ops'],
  setPayoutDestinationStatus: ['ops'],
  getPayoutDestination: ['trading', 'payouts'],
  listPayoutDestinations: ['gateway'],
  // The chain custodian's inbound notification: no platform service makes it yet.
  recordUsdtDeposit: [],
  // Deprecated (ExpectUsdtDeposit claims a held deposit): only a previous trading still calls it during a rolling deploy.
  claimUsdtDeposit: ['trading'],
  // Deposit-mode sell orders' expectations, registered and followed by trading (the ledger never calls back).
  expectUsdtDeposit: ['trading'],
  registerPaymentReference: ['trading'],
  listCreditsByReference: ['trading'],
  listAuditRecords: ['ops'],
} satisfies AccessTable<typeof ledger.LedgerService>;

/** The sandbox's simulated outside world, reached through the gateway's /v1/sandbox routes. */
const LEDGER_SANDBOX = {
  simulateKesCredit: ['gateway'],
  simulateUsdtDeposit: ['gateway'],
} satisfies AccessTable<typeof ledger.LedgerSandboxService>;

export const LEDGER_ACCESS = { LEDGER, LEDGER_SANDBOX } as const;
