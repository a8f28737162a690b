/**
 * The shape of a credential's two tokens. The API key is a public identifier
 * (`pk_<mode>_<24 base62>`); the signing secret (`sk_<43 base64url>`, 32 random
 * bytes) is the HMAC key and is shown once, at issue. Both come from node:crypto.
 */
import { randomBytes, randomInt } from 'node:crypto';

export type KeyMode = 'sandbox' | 'live';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const API_KEY_RANDOM_CHARS = 24;
const SIGNING_SECRET_BYTES = 32;

export function keyModeFor(platformMode: 'sandbox' | 'production'): KeyMode {
  return platformMode === 'production' ? 'live' : 'sandbox';
}

/** `pk_<mode>_` + 24 uniformly random base62 characters (about 143 bits). */
export function generateApiKey(mode: KeyMode): string {
  let random = '';
  // randomInt is uniform (rejection sampling inside), so no modulo bias.
  for (let index = 0; index < API_KEY_RANDOM_CHARS; index += 1) random += BASE62[randomInt(BASE62.length)];
  return `pk_${mode}_${random}`;
}

/** `sk_` + 32 random bytes in base64url (43 characters). */
export function generateSigningSecret(): string {
  return `sk_${randomBytes(SIGNING_SECRET_BYTES).toString('base64url')}`;
}

/** Any well-formed API key, of either mode (operator inputs). */
export const API_KEY_PATTERN = new RegExp(`^pk_(sandbox|live)_[A-Za-z0-9]{${API_KEY_RANDOM_CHARS}}$`);

/** The API keys this deployment accepts: only those of its own mode. */
export function apiKeyPattern(mode: KeyMode): RegExp {
  return new RegExp(`^pk_${mode}_[A-Za-z0-9]{${API_KEY_RANDOM_CHARS}}$`);
}
