/**
 * @platform/sdk: the partner SDK. `new PartnerClient({baseUrl, apiKey, signingSecret})`
 * for typed, signed, retried calls; `createWebhookVerifier({secrets})` for deliveries.
 */
export { PartnerClient } from './partner-client';
export { PartnerTransport, buildPathAndQuery, withMeta, DEFAULT_TIMEOUT_MS } from './client';
export type { PartnerClientOptions, SendOptions, RawResponse, ResponseMeta, WithMeta } from './client';
export { PartnerApiError, isPartnerApiError, WebhookVerificationError, retryAfterHeader } from './errors';
export type { ErrorEnvelope, WebhookRefusal } from './errors';
export { DEFAULT_RETRY_OPTIONS, RETRYABLE_503_CODES, backoffMs, nextRetryDelayMs, retrySafetyOf } from './retry';
export type { RetryOptions, RetrySafety, AttemptOutcome } from './retry';
export {
  signRequestHeaders,
  signingString,
  sha256Hex,
  hmacSha256Hex,
  newNonce,
  SIGNATURE_VERSION,
  SIGNING_TOLERANCE_MS,
} from './signing';
export type { Credentials, SigningInput } from './signing';
export {
  createWebhookVerifier,
  inMemoryDeliveryDedupe,
  webhookSignatureMatches,
  WEBHOOK_TOLERANCE_MS,
} from './webhooks';
export type { WebhookVerifierOptions, VerifiedWebhook, HeaderSource } from './webhooks';
export { CATCH_UP_PAGES_MAX } from './events';
export type { CatchUpOptions } from './events';
export type * from './types';
