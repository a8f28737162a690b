export { createGrpcServer, unaryHandler, GRPC_MESSAGE_BYTES_MAX } from './server';
export type { AsyncImplementation, GrpcServer } from './server';
export { createClient, CALL_DEADLINE_MS_DEFAULT } from './client';
export type { ClientOptions, PromiseClient, CallOptions } from './client';
export { checkHealth, checkHealthOn, HealthState } from './health';
export { fromClientError, isDependencyOutage, isRefusal, toServiceError, ERROR_METADATA_KEY } from './errors';
export { contextToMetadata, metadataToContext } from './context-metadata';
export { runService } from './run-service';
export type { ServiceLifecycle } from './run-service';
