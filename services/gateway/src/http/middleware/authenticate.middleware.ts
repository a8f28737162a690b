import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import { enrichContext, Logger } from '@platform/logger';
import {
  AuthFailureReason,
  AuthHeaders,
  checkHeaderShapes,
  isWellFormedApiKey,
  readAuthHeaders,
  verifySignature,
} from '../../domain/request-signature';
import type { RefusedAuthentications } from '../../domain/refused-authentications';
import type { AuthenticatedCredential, CredentialLookup, RequestAdmission } from '../dependencies';
import type { GatewayMetrics } from '../gateway-metrics';
import { rawBodyOf, setPartnerAuth, setRateLimitDecision } from '../locals';

/**
 * Every refusal is answered no sooner than this after the request reached
 * authentication. Without it, an unknown key (a database lookup) answers
 * measurably slower than a cached key with a bad signature, which tells a
 * prober which keys exist; the floor is above every path's normal cost, so
 * all refusals take the same time. It also slows guessing.
 */
export const AUTH_FAILURE_RESPONSE_FLOOR_MS = 25;

export interface AuthenticateDependencies {
  credentials: CredentialLookup;
  admission: RequestAdmission;
  refusedAuthentications: RefusedAuthentications;
  apiKeyPattern: RegExp;
  logger: Logger;
  metrics: Pick<GatewayMetrics, 'authenticationRefused' | 'rateLimitRefused'>;
  nowMs: () => number;
}

/**
 * Every /v1 request: the four signed headers (key, timestamp, nonce, signature).
 * Order matters: shapes and freshness, then one credential lookup, then the
 * signature (always one HMAC, see request-signature.ts), and only for an
 * authentic request the admission (nonce claim and rate-limit count in one
 * Redis round trip), so a forged request cannot burn a partner's nonce. Every
 * failure is the same 401; the reason is only logged and counted. The rate-limit decision
 * is left for the next step (rate-limit.middleware.ts), which answers it.
 * A store that cannot answer fails closed (503), never open.
 *
 * Before all that, an address that has had too many requests refused in the
 * last minute is answered 429 at once (domain/refused-authentications.ts):
 * no lookup, no HMAC, no Redis trip for a prober; counted as a refusal by the
 * per-address limit.
 */
export function authenticate(deps: AuthenticateDependencies): RequestHandler {
  const refuse = async (
    reason: AuthFailureReason,
    headers: AuthHeaders,
    address: string,
    startedAtMs: number,
  ): Promise<never> => {
    // Only a well-formed key is logged: a partner pasting its secret into the key header must not leak it.
    const apiKey = isWellFormedApiKey(headers, deps.apiKeyPattern) ? headers.apiKey : undefined;
    deps.logger.warn('request authentication failed', { reason, apiKey, sourceAddress: address });
    deps.metrics.authenticationRefused(reason);
    if (deps.refusedAuthentications.record(address)) {
      deps.logger.warn(
        'source address reached its limit of refused authentications; refusing it for the rest of the minute',
        { sourceAddress: address },
      );
    }
    const remainingMs = startedAtMs + AUTH_FAILURE_RESPONSE_FLOOR_MS - performance.now();
    if (remainingMs > 0) await sleep(remainingMs);
    throw new AppError('UNAUTHORIZED');
  };

  // Not an async function: a credential known in memory is checked and the admission asked in
  // the same turn, with one promise (the admission's) where awaiting both cost two suspensions.
  // A throw here and a rejection of the returned promise both reach the error envelope (pipeline.ts).
  return (req, res, next) => {
    const startedAtMs = performance.now();
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const refusals = deps.refusedAuthentications.verdict(address);
    if (refusals.limited) {
      deps.metrics.rateLimitRefused('address');
      throw new AppError('RATE_LIMITED', { retryAfterSeconds: refusals.retryAfterSeconds });
    }
    const headers = readAuthHeaders((name) => req.headers[name]);
    const shapeFailure = checkHeaderShapes(headers, deps.apiKeyPattern, deps.nowMs());
    const checkAndAdmit = (credential: AuthenticatedCredential | null): Promise<void> => {
      const failure = verifySignature({
        headers,
        shapeFailure,
        credential,
        method: req.method,
        pathAndQuery: req.originalUrl,
        body: rawBodyOf(res),
      });
      if (failure !== null || credential === null || headers.nonce === undefined)
        return refuse(failure ?? 'unknown_api_key', headers, address, startedAtMs);
      return deps.admission
        .admit({
          apiKey: credential.apiKey,
          nonce: headers.nonce,
          partnerId: credential.partnerId,
          limitPerMinute: credential.rateLimitPerMinute,
        })
        .then((admission) => {
          if (!admission.nonceFresh) return refuse('replayed_nonce', headers, address, startedAtMs);
          setPartnerAuth(res, {
            partnerId: credential.partnerId,
            apiKey: credential.apiKey,
            scopes: credential.scopes,
            rateLimitPerMinute: credential.rateLimitPerMinute,
          });
          setRateLimitDecision(res, admission.rateLimit);
          // The API key goes on with the request so the services' audit records name the credential that acted.
          enrichContext({ partnerId: credential.partnerId, credentialKey: credential.apiKey });
          next();
          return undefined;
        });
    };
    const credential = isWellFormedApiKey(headers, deps.apiKeyPattern) ? deps.credentials.find(headers.apiKey) : null;
    return credential instanceof Promise ? credential.then(checkAndAdmit) : checkAndAdmit(credential);
  };
}
