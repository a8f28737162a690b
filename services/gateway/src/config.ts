import {
  booleanFlag,
  commonServiceEnv,
  grpcTarget,
  loadConfigOrExit,
  metricsEnv,
  nonNegativeInt,
  port,
  positiveInt,
  refuseDevelopmentKeysInProduction,
  sealingKeyRing,
  urlWithProtocol,
  z,
} from '@platform/config';
import { COALESCED_BATCH_ITEMS_MAX, COALESCING_WINDOW_MS_MAX } from '@platform/grpc';

/** Largest request body the gateway reads. A constant: the contract fixes it. */
export const BODY_BYTES_MAX = 64 * 1024;
/** Upper bound on a partner's per-minute limit; anything larger is an operator typo. */
export const RATE_LIMIT_PER_MINUTE_MAX = 100_000;
const UPSTREAM_DEADLINE_MS_MAX = 60_000;
const AUTH_REFUSALS_PER_MINUTE_PER_ADDRESS_MAX = 1_000_000;
/** Ingress, then perhaps a cloud load balancer: more hops than that is a misreading of the setup. */
const TRUSTED_PROXY_HOPS_MAX = 5;

export const configSchema = z
  .object({
    ...commonServiceEnv,
    /** Partner-plane HTTP port. */
    HTTP_PORT: port(),
    /**
     * Several gateway processes on one machine share HTTP_PORT (SO_REUSEPORT; the kernel
     * spreads connections over them), as the local stack's replicas do. Off by default:
     * in Kubernetes each pod has its own address.
     */
    HTTP_REUSE_PORT: booleanFlag().default('false'),
    ...metricsEnv(9100),
    /** Nonces and rate-limit windows; shared by every gateway replica. */
    REDIS_URL: urlWithProtocol('redis', 'rediss'),
    /**
     * The key ring sealing the credentials' signing secrets at rest (AES-256-GCM):
     * `<id>:<64 hex>[,<id>:<64 hex>…]`, current key first; a bare 64-hex key is `k0`.
     */
    CREDENTIAL_ENCRYPTION_KEY: sealingKeyRing(),
    TRADING_GRPC_ADDR: grpcTarget(),
    LEDGER_GRPC_ADDR: grpcTarget(),
    WALLET_REGISTRY_GRPC_ADDR: grpcTarget(),
    NOTIFIER_GRPC_ADDR: grpcTarget(),
    COLLECTIONS_GRPC_ADDR: grpcTarget(),
    /** Payouts: transfers, confirmations, USDT sends, batches and the mobile-money funding prompt. */
    PAYOUTS_GRPC_ADDR: grpcTarget(),
    /** Webhook delivery: the events feed and the partner's own deliveries (list, retry). */
    WEBHOOK_DELIVERY_GRPC_ADDR: grpcTarget(),
    /** Requests per minute for a partner created without its own limit. */
    RATE_LIMIT_PER_MINUTE_DEFAULT: positiveInt().max(RATE_LIMIT_PER_MINUTE_MAX).default(120),
    /** Deadline of every gRPC call to a service behind the gateway. */
    UPSTREAM_DEADLINE_MS: positiveInt().max(UPSTREAM_DEADLINE_MS_MAX).default(5_000),
    /**
     * `GET /v1/orders/{id}` reads and `POST /v1/quotes` made in one event-loop pass go
     * to trading as one GetOrders or CreateQuotes call (adapters/coalesced-trading.ts):
     * at most this many items a call. 0: not coalesced, each call its own GetOrder or
     * CreateQuote (for a rollout that meets a trading without the batch RPCs).
     */
    TRADING_BATCH_ITEMS_MAX: nonNegativeInt().max(COALESCED_BATCH_ITEMS_MAX).default(64),
    /**
     * How long (ms) such a batch waits for more after its first item; 0: it leaves
     * at the end of the pass its first item came in (no timer).
     */
    TRADING_BATCH_WINDOW_MS: nonNegativeInt().max(COALESCING_WINDOW_MS_MAX).default(0),
    /**
     * Refused authentications one source address may cause on one replica in a
     * minute before it is answered 429 without a lookup. A partner's own client
     * with a wrong secret reaches it only if it retries more than once a second.
     */
    AUTH_REFUSALS_PER_MINUTE_PER_ADDRESS: positiveInt().max(AUTH_REFUSALS_PER_MINUTE_PER_ADDRESS_MAX).default(60),
    /**
     * How many proxies in front of the gateway append to X-Forwarded-For (1 behind
     * the Kubernetes ingress). 0: the peer address is the client's. The source
     * address is read this many hops from the right, so a client cannot choose
     * its own by sending the header.
     */
    TRUSTED_PROXY_HOPS: nonNegativeInt().max(TRUSTED_PROXY_HOPS_MAX).default(0),
  })
  .superRefine(refuseDevelopmentKeysInProduction('CREDENTIAL_ENCRYPTION_KEY'));

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}
