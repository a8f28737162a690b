import {
  commonServiceEnv, hostPort, loadConfigOrExit, metricsEnv, port, positiveInt, refuseDevelopmentKeysInProduction, sealingKeyRing, urlWithProtocol, z,
} from '@platform/config';

/** Largest request body the gateway reads (contract decisions section 5). A constant: the contract fixes it. */
export const BODY_BYTES_MAX = 64 * 1024;
/** Upper bound on a partner's per-minute limit; anything larger is an operator typo. */
export const RATE_LIMIT_PER_MINUTE_MAX = 100_000;
const UPSTREAM_DEADLINE_MS_MAX = 60_000;

export const configSchema = z.object({
  ...commonServiceEnv,
  /** Partner-plane HTTP port. */
  HTTP_PORT: port(),
  ...metricsEnv(9100),
  /** Nonces and rate-limit windows; shared by every gateway replica. */
  REDIS_URL: urlWithProtocol('redis', 'rediss'),
  /**
   * The key ring sealing the credentials' signing secrets at rest (AES-256-GCM):
   * `<id>:<64 hex>[,<id>:<64 hex>…]`, current key first; a bare 64-hex key is `k0`.
   */
  CREDENTIAL_ENCRYPTION_KEY: sealingKeyRing(),
  TRADING_GRPC_ADDR: hostPort(),
  LEDGER_GRPC_ADDR: hostPort(),
  WALLET_REGISTRY_GRPC_ADDR: hostPort(),
  NOTIFIER_GRPC_ADDR: hostPort(),
  COLLECTIONS_GRPC_ADDR: hostPort(),
  /** Payouts: transfers, confirmations, USDT sends, batches and the mobile-money funding prompt. */
  PAYOUTS_GRPC_ADDR: hostPort(),
  // Webhook-delivery's partner routes arrive with a later issue; its address is read now so
  // a deployment can set it ahead of time.
  WEBHOOK_DELIVERY_GRPC_ADDR: hostPort().optional(),
  /** Requests per minute for a partner created without its own limit. */
  RATE_LIMIT_PER_MINUTE_DEFAULT: positiveInt().max(RATE_LIMIT_PER_MINUTE_MAX).default(120),
  /** Deadline of every gRPC call to a service behind the gateway. */
  UPSTREAM_DEADLINE_MS: positiveInt().max(UPSTREAM_DEADLINE_MS_MAX).default(5_000),
}).superRefine(refuseDevelopmentKeysInProduction('CREDENTIAL_ENCRYPTION_KEY'));

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}
