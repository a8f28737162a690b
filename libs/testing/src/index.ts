/**
 * Helpers for integration tests. They talk to the test stack that `npm test`
 * started (described by TEST_STACK_FILE) exactly as a partner or an operator
 * would: signed HTTP to the gateway, the `ops` CLI, HTTPS webhook receivers.
 */
export { loadTestStack, readServiceLogs, serviceLogFiles } from './stack';
export type { TestStack } from './stack';
export { runOps, createTestPartner, newWebhookSecret, setPartnerWebhook } from './ops';
export type { TestPartner, CreatePartnerOptions } from './ops';
export { PartnerHttpClient } from './http-client';
export type { HttpResult, RequestOptions } from './http-client';
export { assertConformsToOpenApi, openApiViolations } from './openapi-validator';
export { startHttpsReceiver } from './https-receiver';
export type { HttpsReceiver, HttpsReceiverOptions, ReceivedRequest } from './https-receiver';
export { waitFor } from './wait';
export { partnerWallet } from './wallets';
export type { WalletStage } from './wallets';
export { SANDBOX_CODE_WAIT_MS, sandboxCode, sandboxCodeMessage } from './sandbox-outbox';
export type { SandboxCodeOptions } from './sandbox-outbox';
export { freePort, serviceEnvironment, startServiceInstance } from './service-instance';
export type { ServiceInstance } from './service-instance';
export { recordSensitive, SENSITIVE_VALUES_FILE } from './sensitive';
export { stackInfra } from './stack-infra';
export { createScratchDatabase, stackDatabaseUrl } from './scratch-database';
export type { ScratchDatabase } from './scratch-database';
export { clientAs, routedClient, stackIdentity } from './grpc-clients';
export { plantedHolds } from './ledger-holds';
export type { HoldsLedger, PlantedHolds } from './ledger-holds';
export type { TestClientOptions } from './grpc-clients';
export { TestCertificateAuthority } from '@platform/grpc/dist/testing/test-certificates';
export type { IssuedCertificate } from '@platform/grpc/dist/testing/test-certificates';
export {
  explaining,
  growth,
  measureOperations,
  migratedDataSource,
  rowsExamined,
  scansOf,
  sequentialScans,
  statementSequentialScans,
  totalRowsExamined,
} from './query-plans';
export { DAY_OF_HOT_HISTORY, describeFlatQueries, seedHistories } from './flat-queries';
export type { FlatQueriesSuite, HistoryGrowth, HistorySeed, PartnerHistories } from './flat-queries';
export type {
  ExplainedStatement,
  ExplainingQueryable,
  MeasuredOperation,
  PlannedOperation,
  PlanNode,
  TableReads,
} from './query-plans';
export { describeOutboxRetention, plantOutboxRow, retentionStand } from './retention';
export type { RetentionStand } from './retention';
