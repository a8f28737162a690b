/**
 * The scopes a partner credential may carry, as the partner contract names
 * them; the gateway refuses any other. A module of its own, loading nothing:
 * the operator CLI reads the list from here
 * (`@platform/openapi/dist/contract/scopes`) without loading the package's
 * index and the zod schemas of every operation.
 */
export const SCOPES = ['read', 'trade', 'payouts', 'wallets', 'funding', 'collections', 'sandbox', 'webhooks'] as const;
export type Scope = (typeof SCOPES)[number];
