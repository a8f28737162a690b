export { createGrpcServer, callerIdentity, unaryHandler, GRPC_HOST_DEFAULT, GRPC_MESSAGE_BYTES_MAX } from './server';
export type { AsyncImplementation, GrpcServer } from './server';
export { allReachable, createClient, isReachable, CALL_DEADLINE_MS_DEFAULT } from './client';
export type { ClientOptions, PromiseClient, CallOptions } from './client';
export { channelTarget, RECONNECT_BACKOFF_MAX_MS } from './channel';
export { RETRYABLE_METHODS } from './retryable-methods';
export { pageAnswerCodec, pageText, withPageAnswer } from './page-answer';
export { askHealth, checkHealth, HealthState } from './health';
export { fromClientError, isDependencyOutage, isRefusal, toServiceError, ERROR_METADATA_KEY } from './errors';
export { contextToMetadata, metadataToContext } from './context-metadata';
export { runService } from './run-service';
export type { ServiceLifecycle } from './run-service';
export { bootService } from './boot-service';
export type { BootConfig, BootContext, RetentionConfig, ServiceBoot, StartedService } from './boot-service';
export {
  identityFromSubjectAltName,
  identityOfPeer,
  identityUri,
  isPlatformIdentity,
  IDENTITY_URI_PREFIX,
  PLATFORM_IDENTITIES,
} from './identity';
export type { PlatformIdentity } from './identity';
export { assertCompleteTable, decideAccess, PERMISSION_DENIED_DETAILS } from './access';
export type { AccessTable } from './access';
export {
  loadServiceTls,
  TlsMaterial,
  TlsMaterialError,
  TLS_RELOAD_INTERVAL_MS_DEFAULT,
  CONNECTION_AGE_MS_DEFAULT,
  CONNECTION_AGE_MS_MAX,
  CONNECTION_AGE_GRACE_MS_DEFAULT,
  CONNECTION_AGE_GRACE_MS_MAX,
} from './tls';
export type { ClientTls, ConnectionAge, TlsFiles, TlsOptions, TlsSettings } from './tls';
export { callLabels, clientCallTimer, codeName, serverCallTimer } from './call-metrics';
export { serverSpans, startClientSpan, traceparentOf } from './call-tracing';
export {
  checkCoalescingSettings,
  coalescedCall,
  fromItemRefusal,
  itemRefusal,
  COALESCED_BATCH_ITEMS_MAX,
  COALESCING_WINDOW_MS_MAX,
} from './coalesced-call';
export type { CoalescedCall, CoalescedCallOptions, CoalescingSettings, ItemOutcome } from './coalesced-call';
