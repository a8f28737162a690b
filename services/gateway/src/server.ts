/** Wires the operator plane (gateway.v1.PartnerAdmin) into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer, TlsMaterial } from '@platform/grpc';
import type { SealingKeyRing } from '@platform/crypto';
import type { Logger } from '@platform/logger';
import { DataSource, ListAuditRecordsUseCase, ResealSecretsUseCase } from '@platform/persistence';
import { gateway } from '@platform/proto';
import { RATE_LIMIT_PER_MINUTE_MAX } from './config';
import { KeyMode } from './domain/credential-tokens';
import { partnerAdminHandlers } from './grpc/partner-admin.handlers';
import { CredentialsRepository } from './persistence/credentials.repository';
import { SERVICE_NAME } from './persistence/data-source';
import { PartnersRepository } from './persistence/partners.repository';
import { CreatePartnerUseCase } from './usecases/create-partner/create-partner.usecase';
import { GetPartnerUseCase } from './usecases/get-partner/get-partner.usecase';
import { IssueCredentialUseCase } from './usecases/issue-credential/issue-credential.usecase';
import { RevokeCredentialUseCase } from './usecases/revoke-credential/revoke-credential.usecase';
import { GATEWAY_ACCESS } from './grpc/access';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** This service's mutual-TLS material (its identity), shared with its clients. */
  tls: TlsMaterial;
  keyMode: KeyMode;
  /** Seals new signing secrets under its current key; opens any key of the ring. */
  sealingKeys: SealingKeyRing;
  rateLimitPerMinuteDefault: number;
  /** Called once a credential is revoked, so every replica's cache forgets it at once; never throws. */
  onCredentialRevoked: (apiKey: string) => void | Promise<void>;
}

export function createServer(deps: ServerDependencies): GrpcServer {
  const server = createGrpcServer(deps.logger, deps.tls);
  const partners = new PartnersRepository(deps.dataSource);
  const credentials = new CredentialsRepository(deps.dataSource);
  server.add(
    gateway.PartnerAdminService,
    partnerAdminHandlers({
      createPartner: new CreatePartnerUseCase(
        deps.dataSource,
        partners,
        {
          rateLimitDefault: deps.rateLimitPerMinuteDefault,
          rateLimitMax: RATE_LIMIT_PER_MINUTE_MAX,
        },
        deps.logger,
      ),
      getPartner: new GetPartnerUseCase(partners),
      issueCredential: new IssueCredentialUseCase(
        deps.dataSource,
        partners,
        credentials,
        {
          keyMode: deps.keyMode,
          sealingKeys: deps.sealingKeys,
        },
        deps.logger,
      ),
      revokeCredential: new RevokeCredentialUseCase(
        deps.dataSource,
        credentials,
        deps.onCredentialRevoked,
        deps.logger,
      ),
      resealSecrets: new ResealSecretsUseCase(
        deps.dataSource,
        deps.sealingKeys,
        [{ table: 'credentials', idColumn: 'api_key', column: 'secret_sealed' }],
        deps.logger.child({ context: 'ResealSecrets' }),
      ),
      listAuditRecords: new ListAuditRecordsUseCase(deps.dataSource, SERVICE_NAME),
    }),
    GATEWAY_ACCESS.PARTNER_ADMIN,
  );
  return server;
}
