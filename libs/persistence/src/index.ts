/**
 * PostgreSQL through TypeORM. Each service owns one database and its own
 * migrations (never `synchronize`). Transactions that may meet a concurrent
 * writer are retried, a bounded number of times, on serialisation failures
 * and deadlocks, so neither ever reaches a caller.
 */
export * from './data-source';
export { DueWork, DurableScheduler, SchedulerOptions } from './durable-scheduler';
export { BACKOFF_MS_MAX_DEFAULT, DRAIN_MS_DEFAULT, isUnavailable, WorkLoop } from './work-loop';
export type { PassOutcome, ReadinessGate, WorkLoopOptions } from './work-loop';
export {
  claimDueSql,
  DUE_ROWS_COUNTED_MAX,
  dueRowsProbe,
  dueRowsSql,
  releaseClaims,
  releaseClaimsSql,
} from './due-rows';
export type { DueClaim, DueRows, DueRowsMeasurement } from './due-rows';
export {
  fenceSql,
  giveBackHeldSql,
  HeldLeases,
  isLeaseLost,
  LEASE_MS_DEFAULT,
  LEASE_MS_MAX,
  LEASE_MS_MIN,
  LEASE_RENEWALS_PER_LEASE_MIN,
  LeaseLostError,
  leaseTimingProblem,
  leaseTokenSelect,
  renewEveryMsFor,
  renewLeasesSql,
} from './lease';
export type { LeaseTiming, StepLease } from './lease';
export { BatchSweeper, BatchSweeperOptions, BatchTask, SweptRows } from './batch-sweeper';
export { resealColumns, ResealSecretsUseCase, RESEAL_BATCH_SIZE_DEFAULT, RESEAL_BATCH_SIZE_MAX } from './reseal';
export type { ResealingKeys, ResealOutcome, SealedColumn } from './reseal';
export {
  decodeKeysetCursor,
  encodeKeysetCursor,
  keysetConditions,
  keysetTimeSql,
  newestFirstPageSql,
  pageOf,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
  readPageBounds,
} from './keyset-page';
export type { KeysetPosition, PageBounds, PageQuery } from './keyset-page';
export {
  AUDIT_ACTION_PATTERN,
  AUDIT_DETAILS_BYTES_MAX,
  AUDIT_PAGE_LIMIT_DEFAULT,
  AUDIT_PAGE_LIMIT_MAX,
  AUDIT_RECORDS_TABLE_V1,
  AUDIT_RECORDS_TABLE_V1_DOWN,
  auditCursor,
  auditRow,
  listAuditRecords,
  ListAuditRecordsUseCase,
  OPERATOR_NAME_PATTERN,
  parseAuditQuery,
  recordAudit,
} from './audit';
export type { AuditActor, AuditEntry, AuditPage, AuditRecord, AuditRow, ListAuditRecordsCommand } from './audit';
export { GroupCommit } from './group-commit';
export type { BatchWrite } from './group-commit';
export { claimIdempotently, CLAIM_ATTEMPTS_MAX, TWIN_POLL_MS, TWIN_WAIT_MS_MAX } from './idempotency';
export type { IdempotentCreate, IdempotentRow } from './idempotency';
export {
  BATCH_LAG_BEHIND_DROPS_MS,
  overdueSql,
  partitionRuleOf,
  partitionSweeper,
  pruneBatch,
  pruneSql,
  RETENTION_BATCH_SIZE_MAX,
  retentionCutoff,
  retentionSweepers,
  startRetention,
} from './retention';
export type { RetentionOptions, RetentionRule, WeeklyPartitioning } from './retention';
export {
  createMissingWeeks,
  createWeek,
  detachedWeeks,
  dropWeek,
  expiredPartitions,
  isNoPartitionForRow,
  maintainPartitions,
  rangeBelowEndMs,
  WEEK_MS,
  WEEKS_CREATED_ON_DEMAND_MAX,
  weekPartitionName,
  weeklyPartitions,
  weekStartMs,
} from './partitions';
export type { PartitionRule } from './partitions';
export { BoundedCache, CACHE_ENTRIES_MAX_LIMIT, CACHE_TTL_MS_LIMIT } from './bounded-cache';
export type { BoundedCacheOptions } from './bounded-cache';
export { preparedStatementName, queryPrepared, queryPreparedArrays, queryPreparedIn } from './prepared-query';
