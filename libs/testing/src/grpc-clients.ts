/**
 * gRPC clients for integration tests, speaking mutual TLS with the test
 * stack's own certificates (stack.json `tls`). A test calls a service as the
 * identity that really makes the call in production (`clientAs('payouts', …)`),
 * or through `routedClient`, which makes each call as the first identity the
 * service's own allow-list admits for that method: tests exercise the
 * allow-lists instead of bypassing them.
 */
import { AccessTable, createClient, PromiseClient, TlsMaterial } from '@platform/grpc';
import { createLogger, Logger } from '@platform/logger';
import { loadTestStack } from './stack';

type Definition = Parameters<typeof createClient>[0];

export interface TestClientOptions {
  /** The service called (its identity, and its key in stack.json `grpc`). */
  upstream: string;
  /** Defaults to the stack's address of `upstream` (e.g. an extra replica's). */
  address?: string;
  deadlineMs?: number;
  logger?: Logger;
}

const materials = new Map<string, TlsMaterial>();
let silentLogger: Logger | null = null;

function defaultLogger(): Logger {
  silentLogger ??= createLogger('integration-test', 'error');
  return silentLogger;
}

/** The TLS material of one of the stack's identities (a service's, or `ops`). */
export function stackIdentity(identity: string): TlsMaterial {
  let material = materials.get(identity);
  if (!material) {
    const tls = loadTestStack().tls;
    const files = tls?.identities[identity];
    if (!tls || !files) throw new Error(`the stack file has no TLS identity ${identity}: restart the test stack`);
    material = new TlsMaterial(
      { caFile: tls.caFile, ...files },
      { logger: defaultLogger(), expectedIdentity: identity },
    );
    materials.set(identity, material);
  }
  return material;
}

/** A client of `options.upstream` calling as `identity`. */
export function clientAs<D extends Definition>(
  identity: string,
  definition: D,
  options: TestClientOptions,
): PromiseClient<D> {
  return createClient(definition, {
    upstream: options.upstream,
    address: options.address ?? loadTestStack().grpc[options.upstream],
    tls: stackIdentity(identity).client(options.upstream),
    logger: options.logger ?? defaultLogger(),
    deadlineMs: options.deadlineMs,
  });
}

/**
 * A client whose every method calls as the first identity `access` admits for
 * it (one channel per identity used). A method nobody may call throws.
 */
export function routedClient<D extends Definition>(
  definition: D,
  access: AccessTable<D>,
  options: TestClientOptions,
): PromiseClient<D> {
  const byIdentity = new Map<string, PromiseClient<D>>();
  const asIdentity = (identity: string) => {
    let client = byIdentity.get(identity);
    if (!client) {
      client = clientAs(identity, definition, options);
      byIdentity.set(identity, client);
    }
    return client;
  };
  const routed: Record<string, unknown> = {
    close: () => byIdentity.forEach((client) => client.close()),
    serving: (timeoutMs: number) => asIdentity('ops').serving(timeoutMs),
  };
  Object.defineProperty(routed, 'breaker', {
    get: () => asIdentity(access[Object.keys(definition)[0] as keyof D][0] ?? 'ops').breaker,
  });
  for (const method of Object.keys(definition) as (keyof D & string)[]) {
    const [identity] = access[method];
    routed[method] = (request: unknown, callOptions?: unknown) => {
      if (!identity) return Promise.reject(new Error(`no identity may call ${method}`));
      return (asIdentity(identity)[method] as (request: unknown, options?: unknown) => Promise<unknown>)(
        request,
        callOptions,
      );
    };
  }
  return routed as PromiseClient<D>;
}
