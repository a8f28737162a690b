/**
 * Who may call each RPC of the gateway's operator plane (service identities,
 * spiffe://platform/<name>), enforced by @platform/grpc before any handler
 * runs. Partners and their credentials are managed by `ops` alone: no service,
 * the gateway's own partner plane included, can mint a credential.
 */
import type { AccessTable } from '@platform/grpc';
import type { gateway } from '@platform/proto';

export const GATEWAY_ACCESS = {
  PARTNER_ADMIN: {
    createPartner: ['ops'],
    getPartner: ['ops'],
    issueCredential: ['ops'],
    revokeCredential: ['ops'],
    resealSecrets: ['ops'],
    listAuditRecords: ['ops'],
  } satisfies AccessTable<typeof gateway.PartnerAdminService>,
} as const;
