/**
 * Sends one webhook attempt over HTTPS with node:https (no fetch: we need the
 * socket-level controls below).
 *
 * - One bound for the whole attempt (ATTEMPT_TIMEOUT_MS, 10 s, never scaled):
 *   DNS, connect, TLS, request and response all fit inside it.
 * - Redirects are never followed: node:https does not follow them, and a 3xx
 *   is reported as such.
 * - At most RESPONSE_BYTES_MAX of the response body is read.
 * - SSRF: the URL is checked, then the host is resolved at every attempt and
 *   every address it resolves to must be allowed (address-policy.ts). The
 *   socket connects only to those checked addresses (a `lookup` that answers
 *   from them), so DNS cannot change its answer between check and connect.
 *   SNI and the Host header stay the URL's host, so TLS verifies the name.
 * - Keep-alive: connections are pooled per endpoint AND per checked address
 *   set (one agent each). An attempt may reuse an idle connection only from the
 *   pool of the addresses it has just resolved and checked, so every byte goes
 *   to an address that passed the check of this very attempt: a connection's
 *   peer never changes, a DNS answer that moves (rebinding included) selects
 *   another pool and is checked before anything connects, and a refused answer
 *   fails the attempt before any pool is looked at. The reused socket's peer is
 *   asserted against the checked set as well. Idle connections close after
 *   KEEP_ALIVE_IDLE_MS (or the server's shorter Keep-Alive hint). A reused
 *   connection the server had closed meanwhile fails before any answer; the
 *   attempt then goes once more over a fresh connection, within its deadline
 *   (the receiver may see the delivery twice, which the contract allows).
 * - Extra trusted CAs come from NODE_EXTRA_CA_CERTS, which node reads itself.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isAddressAllowed } from '../domain/address-policy';
import { AttemptResult, classifyNetworkErrorCode, ErrorClass } from '../domain/attempt-outcome';
import { checkEndpointUrl, EndpointTarget } from '../domain/endpoint-url';
import type { PlatformMode } from '../domain/platform-mode';
import { responseExcerpt } from '../domain/response-excerpt';

/** Per attempt, everything included. Not scaled by SANDBOX_TIME_SCALE. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const RESPONSE_BYTES_MAX = 4 * 1024;
/** More addresses than this for one host is refused rather than checked. */
export const RESOLVED_ADDRESSES_MAX = 32;
/** An idle pooled connection is closed after this (below the common 5 s server keep-alive). */
export const KEEP_ALIVE_IDLE_MS = 4_000;
/**
 * Idle connections kept per endpoint host and address set by default; services pass
 * their bound on attempts in flight (many partners may share one receiving host, and
 * a connection is idle only for KEEP_ALIVE_IDLE_MS after an attempt used it, so the
 * idle ones never outnumber the attempts of the last few seconds).
 */
export const IDLE_CONNECTIONS_PER_POOL_MAX_DEFAULT = 64;
/** Pools (endpoint and address set) remembered; the least recently used is dropped beyond. */
export const POOLS_MAX = 1_000;

export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Aborts the attempt (shutdown). The result is then not to be recorded. */
  signal?: AbortSignal;
}

export interface WebhookSender {
  send(webhook: OutgoingWebhook): Promise<AttemptResult>;
}

export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

export interface HttpsWebhookSenderOptions {
  mode: PlatformMode;
  /** Overrides for tests; production uses the defaults. */
  timeoutMs?: number;
  resolveAll?: ResolveAll;
  /** Replaces the trusted CAs (tests only; services use NODE_EXTRA_CA_CERTS). */
  ca?: string | Buffer;
  /** Idle connections kept per pool (endpoint host and checked address set). */
  idleConnectionsPerPoolMax?: number;
}

const systemResolveAll: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

class AttemptFailure extends Error {
  constructor(
    readonly errorClass: ErrorClass,
    detail: string,
  ) {
    super(detail);
  }
}

/** A reused connection that fails with one of these before any answer had been closed by the server. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

type PostOutcome = AttemptResult | { kind: 'stale_connection' };

export class HttpsWebhookSender implements WebhookSender {
  private readonly timeoutMs: number;
  private readonly resolveAll: ResolveAll;
  /** Keep-alive pools, keyed by endpoint host, port and the checked address set; least recently used first. */
  private readonly pools = new Map<string, Agent>();

  constructor(private readonly options: HttpsWebhookSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.resolveAll = options.resolveAll ?? systemResolveAll;
  }

  async send(webhook: OutgoingWebhook): Promise<AttemptResult> {
    const startedMs = performance.now();
    const deadlineMs = startedMs + this.timeoutMs;
    const elapsedMs = () => Math.max(0, Math.round(performance.now() - startedMs));
    try {
      const target = checkedTarget(webhook.url, this.options.mode);
      const addresses = await this.resolveChecked(target, deadlineMs);
      const pooled = await this.post(
        target,
        addresses,
        this.poolFor(target, addresses),
        webhook,
        deadlineMs,
        elapsedMs,
      );
      if (pooled.kind !== 'stale_connection') return pooled;
      const fresh = await this.post(target, addresses, false, webhook, deadlineMs, elapsedMs);
      if (fresh.kind === 'stale_connection') throw new Error('a fresh connection was reported as reused');
      return fresh;
    } catch (error) {
      if (error instanceof AttemptFailure)
        return { kind: 'failure', errorClass: error.errorClass, detail: error.message, latencyMs: elapsedMs() };
      throw error;
    }
  }

  /** Idle connections held right now, across pools (for tests and metrics). */
  idleConnectionCount(): number {
    let count = 0;
    for (const agent of this.pools.values())
      for (const sockets of Object.values(agent.freeSockets)) count += sockets?.length ?? 0;
    return count;
  }

  private poolFor(target: EndpointTarget, addresses: LookupAddress[]): Agent {
    const key = `${target.hostname}|${target.port}|${addresses
      .map((entry) => entry.address)
      .sort()
      .join(',')}`;
    const existing = this.pools.get(key);
    if (existing) {
      this.pools.delete(key);
      this.pools.set(key, existing);
      return existing;
    }
    const agent = new Agent({
      keepAlive: true,
      maxFreeSockets: this.options.idleConnectionsPerPoolMax ?? IDLE_CONNECTIONS_PER_POOL_MAX_DEFAULT,
      timeout: KEEP_ALIVE_IDLE_MS,
      scheduling: 'lifo',
      lookup: pinnedLookup(addresses),
      ...(this.options.ca !== undefined ? { ca: this.options.ca } : {}),
    });
    this.pools.set(key, agent);
    // Dropped, not destroyed: attempts on it finish, and its idle connections are unref'd and time out.
    if (this.pools.size > POOLS_MAX) this.pools.delete(this.pools.keys().next().value as string);
    return agent;
  }

  private async resolveChecked(target: EndpointTarget, deadlineMs: number): Promise<LookupAddress[]> {
    if (target.literalAddress !== null)
      return [{ address: target.literalAddress, family: isIP(target.literalAddress) }];
    let addresses: LookupAddress[];
    try {
      addresses = await withDeadline(this.resolveAll(target.hostname), deadlineMs);
    } catch (error) {
      if (error instanceof AttemptFailure) throw error;
      throw new AttemptFailure(
        'dns',
        `lookup failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    if (addresses.length === 0) throw new AttemptFailure('dns', 'lookup returned no address');
    if (addresses.length > RESOLVED_ADDRESSES_MAX)
      throw new AttemptFailure('ssrf_refused', `host resolved to ${addresses.length} addresses`);
    const refused = addresses.filter((entry) => !isAddressAllowed(entry.address, this.options.mode));
    if (refused.length > 0)
      throw new AttemptFailure('ssrf_refused', `host resolves to refused address ${refused[0]?.address}`);
    return addresses;
  }

  private post(
    target: EndpointTarget,
    addresses: LookupAddress[],
    agent: Agent | false,
    webhook: OutgoingWebhook,
    deadlineMs: number,
    elapsedMs: () => number,
  ): Promise<PostOutcome> {
    return new Promise((resolve) => {
      let response: IncomingMessage | null = null;
      let settled = false;
      const finish = (result: PostOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        webhook.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const fail = (errorClass: ErrorClass, detail: string) =>
        finish({ kind: 'failure', errorClass, detail, latencyMs: elapsedMs() });
      const request = httpsRequest(
        {
          hostname: target.hostname,
          port: target.port,
          path: target.path,
          method: 'POST',
          headers: webhook.headers,
          agent,
          lookup: pinnedLookup(addresses),
          ...(this.options.ca !== undefined ? { ca: this.options.ca } : {}),
        },
        (incoming) => {
          response = incoming;
          const latencyMs = elapsedMs();
          void readBounded(incoming, RESPONSE_BYTES_MAX).then((body) =>
            finish({
              kind: 'response',
              statusCode: incoming.statusCode ?? 0,
              retryAfter: firstHeader(incoming.headers['retry-after']),
              responseExcerpt: responseExcerpt(body),
              latencyMs,
            }),
          );
        },
      );
      request.on('socket', (socket) => {
        // A pooled connection was opened through the pinned lookup of this very address set; assert it all the same.
        if (request.reusedSocket && !addresses.some((entry) => entry.address === socket.remoteAddress)) {
          fail('ssrf_refused', `pooled connection to unchecked address ${socket.remoteAddress}`);
          request.destroy();
        }
      });
      // Once the status line is in, a broken body does not change the outcome.
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (response !== null) return;
        const code = errorCode(error);
        if (request.reusedSocket && code !== undefined && STALE_CONNECTION_CODES.has(code))
          finish({ kind: 'stale_connection' });
        else fail(classifyNetworkErrorCode(code), describeError(error));
      });
      const stop = (errorClass: ErrorClass, detail: string) => {
        if (response !== null) response.destroy();
        else {
          fail(errorClass, detail);
          request.destroy();
        }
      };
      const timer = setTimeout(
        () => stop('timeout', `no answer within ${this.timeoutMs} ms`),
        Math.max(0, deadlineMs - performance.now()),
      );
      const onAbort = () => stop('connection', 'attempt aborted (shutting down)');
      if (webhook.signal?.aborted) onAbort();
      webhook.signal?.addEventListener('abort', onAbort, { once: true });
      request.end(webhook.body);
    });
  }
}

function checkedTarget(url: string, mode: PlatformMode): EndpointTarget {
  const check = checkEndpointUrl(url, mode);
  if (check.ok) return check.target;
  throw new AttemptFailure(
    check.problem === 'address_refused' ? 'ssrf_refused' : 'invalid_url',
    `endpoint URL refused: ${check.problem}`,
  );
}

/** A `lookup` for the socket that answers only from addresses already checked. */
export function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return ((
    _hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: (...args: unknown[]) => void,
  ) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    const usable = family === 0 ? addresses : addresses.filter((entry) => entry.family === family);
    const first = usable[0];
    if (first === undefined) {
      callback(Object.assign(new Error(`no checked address of family ${family}`), { code: 'ENOTFOUND' }));
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  }) as unknown as LookupFunction;
}

/** Reads at most `bytesMax` of a response, then drops the connection. Never rejects. */
function readBounded(incoming: IncomingMessage, bytesMax: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).subarray(0, bytesMax));
    incoming.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= bytesMax) incoming.destroy();
    });
    incoming.on('end', done);
    incoming.on('close', done);
    incoming.on('error', done);
  });
}

function withDeadline<T>(promise: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AttemptFailure('timeout', 'DNS lookup did not finish in time')),
      Math.max(0, deadlineMs - performance.now()),
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

// With several addresses node may report an AggregateError; its first error says why.
function errorCode(error: NodeJS.ErrnoException): string | undefined {
  if (error.code !== undefined) return error.code;
  const inner = (error as unknown as { errors?: NodeJS.ErrnoException[] }).errors?.[0];
  return inner?.code;
}

function describeError(error: NodeJS.ErrnoException): string {
  const code = errorCode(error);
  return code ? `${code}: ${error.message}` : error.message;
}
