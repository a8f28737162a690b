import type { AsyncImplementation } from '@platform/grpc';
import type { ListAuditRecordsUseCase, ResealSecretsUseCase } from '@platform/persistence';
import { gateway } from '@platform/proto';
import type { CreatePartnerUseCase } from '../usecases/create-partner/create-partner.usecase';
import type { GetPartnerUseCase } from '../usecases/get-partner/get-partner.usecase';
import type { IssueCredentialUseCase } from '../usecases/issue-credential/issue-credential.usecase';
import type { RevokeCredentialUseCase } from '../usecases/revoke-credential/revoke-credential.usecase';

/** Translates gRPC messages to commands; no decisions here. */
export function partnerAdminHandlers(deps: {
  createPartner: CreatePartnerUseCase;
  getPartner: GetPartnerUseCase;
  issueCredential: IssueCredentialUseCase;
  revokeCredential: RevokeCredentialUseCase;
  resealSecrets: ResealSecretsUseCase;
  listAuditRecords: ListAuditRecordsUseCase;
}): AsyncImplementation<typeof gateway.PartnerAdminService> {
  return {
    createPartner: (request) => deps.createPartner.execute(request),
    getPartner: (request) => deps.getPartner.execute(request),
    issueCredential: (request) => deps.issueCredential.execute(request),
    revokeCredential: (request) => deps.revokeCredential.execute(request),
    resealSecrets: (request) => deps.resealSecrets.execute(request),
    listAuditRecords: (request) => deps.listAuditRecords.execute(request),
  };
}
