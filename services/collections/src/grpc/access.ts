/**
 * Who may call each collections RPC (service identities,
 * spiffe://platform/<name>), enforced by @platform/grpc before any handler
 * runs. The gateway reaches the partner-facing collections and the sandbox;
 * fee terms belong to `ops`. Amend an entry when a caller starts or stops
 * calling.
 */
import type { AccessTable } from '@platform/grpc';
import type { collections } from '@platform/proto';

export const COLLECTIONS_ACCESS = {
  COLLECTIONS: {
    createCollection: ['gateway'],
    getCollection: ['gateway'],
    listCollections: ['gateway'],
  } satisfies AccessTable<typeof collections.CollectionsService>,
  ADMIN: { configureFees: ['ops'], listAuditRecords: ['ops'] } satisfies AccessTable<
    typeof collections.CollectionsAdminService
  >,
  SANDBOX: {
    simulateDeposit: ['gateway'],
    expireNow: ['gateway'],
  } satisfies AccessTable<typeof collections.CollectionsSandboxService>,
} as const;
