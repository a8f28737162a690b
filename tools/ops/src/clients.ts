/**
 * Where the services are and the gRPC clients that reach them. An address
 * comes from `<PEER>_GRPC_ADDR` when set, else from the stack file that
 * `npm start` writes (`OPS_STACK_FILE`, default `.stack/stack.json` under the
 * repository root). Clients are made on first use, so a command needs the
 * addresses of only the services it calls.
 *
 * The tool speaks mutual TLS as the identity `ops` (spiffe://platform/ops),
 * the only identity the services' operator RPCs admit: its CA, certificate and
 * key come from TLS_CA_FILE, TLS_CERT_FILE and TLS_KEY_FILE when set, else
 * from the stack file's `tls` (the local stack issues an ops certificate).
 */
import { isAbsolute, join, resolve } from 'node:path';
import { AppError, isAppError } from '@platform/errors';
import { type CallOptions, createClient, PromiseClient, TlsFiles, TlsMaterial, TlsMaterialError } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { collections, gateway, ledger, payouts, trading, walletRegistry, webhookDelivery } from '@platform/proto';
import { CliError, UpstreamError } from './cli-error';

/** Every call waits at most this long for its answer. */
export const CALL_DEADLINE_MS = 10_000;
export const STACK_FILE_DEFAULT = join('.stack', 'stack.json');
const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/;
/** A stack file is a few kilobytes; anything far larger is not one. */
const STACK_FILE_BYTES_MAX = 1024 * 1024;

/** The services the tool talks to: their environment variable and their key in the stack file's `grpc`. */
export const UPSTREAMS = {
  gateway: { envName: 'GATEWAY_GRPC_ADDR', stackKey: 'gateway' },
  trading: { envName: 'TRADING_GRPC_ADDR', stackKey: 'trading' },
  ledger: { envName: 'LEDGER_GRPC_ADDR', stackKey: 'ledger' },
  walletRegistry: { envName: 'WALLET_REGISTRY_GRPC_ADDR', stackKey: 'wallet-registry' },
  webhookDelivery: { envName: 'WEBHOOK_DELIVERY_GRPC_ADDR', stackKey: 'webhook-delivery' },
  collections: { envName: 'COLLECTIONS_GRPC_ADDR', stackKey: 'collections' },
  payouts: { envName: 'PAYOUTS_GRPC_ADDR', stackKey: 'payouts' },
} as const;

export type Upstream = keyof typeof UPSTREAMS;

export interface AddressSources {
  env: NodeJS.ProcessEnv;
  repoRoot: string;
  readFile: (path: string) => string;
}

export function stackFilePath(env: NodeJS.ProcessEnv, repoRoot: string): string {
  const configured = env.OPS_STACK_FILE?.trim();
  const file = configured ? configured : STACK_FILE_DEFAULT;
  return isAbsolute(file) ? file : resolve(repoRoot, file);
}

function configurationError(message: string): CliError {
  return new CliError('CONFIGURATION_ERROR', message);
}

/** The stack file's `key` object; `missing` starts each complaint ("no address for ledger: ..."). */
function readStackSection(
  file: string,
  sources: AddressSources,
  missing: string,
  key: 'grpc' | 'tls',
): Record<string, unknown> {
  let text: string;
  try {
    text = sources.readFile(file);
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'does not exist'
        : `cannot be read (${(error as Error).message})`;
    throw configurationError(
      `${missing}, and the stack file ${file} ${reason}; start the stack with \`npm start\` or set the variable`,
    );
  }
  if (text.length > STACK_FILE_BYTES_MAX)
    throw configurationError(`${missing}, and ${file} is too large to be a stack file`);
  try {
    const section = (JSON.parse(text) as Record<string, unknown>)[key];
    if (section && typeof section === 'object' && !Array.isArray(section)) return section as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw configurationError(`${missing}, and ${file} is not a stack file (expected JSON with a "${key}" object)`);
}

/** The host:port of `upstream`; throws CONFIGURATION_ERROR saying what to set when there is none. */
export function resolveAddress(upstream: Upstream, sources: AddressSources): string {
  const { envName, stackKey } = UPSTREAMS[upstream];
  const fromEnv = sources.env[envName]?.trim();
  if (fromEnv) {
    if (!HOST_PORT.test(fromEnv))
      throw configurationError(`${envName} must be host:port, got ${JSON.stringify(fromEnv)}`);
    return fromEnv;
  }
  const file = stackFilePath(sources.env, sources.repoRoot);
  const missing = `no address for ${stackKey}: ${envName} is not set`;
  const fromStack = readStackSection(file, sources, missing, 'grpc')[stackKey];
  if (typeof fromStack !== 'string' || !HOST_PORT.test(fromStack)) {
    throw configurationError(`${missing}, and ${file} has no host:port at grpc["${stackKey}"]`);
  }
  return fromStack;
}

export const OPS_IDENTITY = 'ops';
const TLS_VARIABLES = ['TLS_CA_FILE', 'TLS_CERT_FILE', 'TLS_KEY_FILE'] as const;

/** The ops identity's TLS files: all three variables, else the stack file's `tls`. */
export function resolveTlsFiles(sources: AddressSources): TlsFiles {
  const [caFile, certFile, keyFile] = TLS_VARIABLES.map((name) => sources.env[name]?.trim() ?? '');
  const given = [caFile, certFile, keyFile].filter(Boolean).length;
  if (given === 3) return { caFile, certFile, keyFile };
  if (given > 0)
    throw configurationError(`set all of ${TLS_VARIABLES.join(', ')} or none (then the stack file's are used)`);
  const file = stackFilePath(sources.env, sources.repoRoot);
  const missing = `no TLS identity: ${TLS_VARIABLES.join(', ')} are not set`;
  const tls = readStackSection(file, sources, missing, 'tls');
  const identity = (tls.identities as Record<string, Partial<TlsFiles>> | undefined)?.[OPS_IDENTITY];
  if (
    typeof tls.caFile !== 'string' ||
    typeof identity?.certFile !== 'string' ||
    typeof identity.keyFile !== 'string'
  ) {
    throw configurationError(`${missing}, and ${file} has no tls.caFile and tls.identities.${OPS_IDENTITY}`);
  }
  return { caFile: tls.caFile, certFile: identity.certFile, keyFile: identity.keyFile };
}

/** The clients a command may use. An interface, so command specs can pass fakes. */
export interface OpsClients {
  partnerAdmin(): PromiseClient<typeof gateway.PartnerAdminService>;
  tradingAdmin(): PromiseClient<typeof trading.TradingAdminService>;
  tradingOperator(): PromiseClient<typeof trading.TradingOperatorService>;
  ledger(): PromiseClient<typeof ledger.LedgerService>;
  walletRegistryAdmin(): PromiseClient<typeof walletRegistry.WalletRegistryAdminService>;
  webhookAdmin(): PromiseClient<typeof webhookDelivery.WebhookAdminService>;
  collectionsAdmin(): PromiseClient<typeof collections.CollectionsAdminService>;
  payoutsOperator(): PromiseClient<typeof payouts.PayoutsOperatorService>;
}

type Definition = Parameters<typeof createClient>[0];

export class GrpcOpsClients implements OpsClients {
  private readonly open = new Map<Definition, PromiseClient<Definition>>();
  private readonly addresses = new Map<Upstream, string>();
  private tls: TlsMaterial | null = null;

  constructor(
    private readonly sources: AddressSources,
    private readonly logger: Logger,
  ) {}

  partnerAdmin() {
    return this.client('gateway', gateway.PartnerAdminService);
  }

  tradingAdmin() {
    return this.client('trading', trading.TradingAdminService);
  }

  tradingOperator() {
    return this.client('trading', trading.TradingOperatorService);
  }

  ledger() {
    return this.client('ledger', ledger.LedgerService);
  }

  walletRegistryAdmin() {
    return this.client('walletRegistry', walletRegistry.WalletRegistryAdminService);
  }

  webhookAdmin() {
    return this.client('webhookDelivery', webhookDelivery.WebhookAdminService);
  }

  collectionsAdmin() {
    return this.client('collections', collections.CollectionsAdminService);
  }

  payoutsOperator() {
    return this.client('payouts', payouts.PayoutsOperatorService);
  }

  closeAll(): void {
    for (const client of this.open.values()) client.close();
    this.open.clear();
    this.tls?.close();
  }

  /** The ops identity, read once; an unusable certificate is a configuration error naming the reason. */
  private identity(): TlsMaterial {
    if (!this.tls) {
      try {
        this.tls = new TlsMaterial(resolveTlsFiles(this.sources), {
          logger: this.logger,
          expectedIdentity: OPS_IDENTITY,
        });
      } catch (error) {
        if (error instanceof TlsMaterialError) throw configurationError(error.message);
        throw error;
      }
    }
    return this.tls;
  }

  private address(upstream: Upstream): string {
    let address = this.addresses.get(upstream);
    if (!address) {
      address = resolveAddress(upstream, this.sources);
      this.addresses.set(upstream, address);
    }
    return address;
  }

  /** A client whose failures are UpstreamErrors naming the service, its address and the method. */
  private client<D extends Definition>(upstream: Upstream, definition: D): PromiseClient<D> {
    const existing = this.open.get(definition);
    if (existing) return existing as unknown as PromiseClient<D>;
    const address = this.address(upstream);
    const name = UPSTREAMS[upstream].stackKey;
    const client = createClient(definition, {
      upstream: name,
      address,
      tls: this.identity().client(name),
      logger: this.logger,
      deadlineMs: CALL_DEADLINE_MS,
    });
    const wrapped: Record<string, unknown> = { close: () => client.close(), breaker: client.breaker };
    for (const method of Object.keys(definition)) {
      const call = client[method] as (request: unknown, options?: CallOptions) => Promise<unknown>;
      wrapped[method] = (request: unknown, options?: CallOptions) =>
        call(request, options).catch((error: unknown) => {
          throw new UpstreamError(name, address, method, isAppError(error) ? error : new AppError('INTERNAL_ERROR'));
        });
    }
    this.open.set(definition, wrapped as unknown as PromiseClient<Definition>);
    return wrapped as unknown as PromiseClient<D>;
  }
}
