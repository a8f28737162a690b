import type { AsyncImplementation } from '@platform/grpc';
import type { ListAuditRecordsUseCase } from '@platform/persistence';
import { collections } from '@platform/proto';
import type { ConfigureFeesUseCase } from '../usecases/configure-fees/configure-fees.usecase';
import { toProtoFee } from './presenters';

/** Translates gRPC messages to commands; no decisions here. */
export function collectionsAdminHandlers(deps: {
  configureFees: ConfigureFeesUseCase;
  listAuditRecords: ListAuditRecordsUseCase;
}): AsyncImplementation<typeof collections.CollectionsAdminService> {
  return {
    async configureFees(request) {
      const result = await deps.configureFees.execute(request);
      return { partnerId: result.partnerId, fee: toProtoFee(result.terms) };
    },
    listAuditRecords: (request) => deps.listAuditRecords.execute(request),
  };
}
