/**
 * Signing-secret rules for an endpoint. Setting a different secret rotates:
 * the old one keeps signing alongside the new one for the overlap (default
 * 24 hours), so a partner can deploy the new secret without dropping events.
 * Setting the same secret again changes nothing about the secrets.
 */
import { validationFailed } from '@platform/errors';

export const SIGNING_SECRET_LENGTH_MIN = 16;
export const SIGNING_SECRET_LENGTH_MAX = 256;
export const ROTATION_OVERLAP_SECONDS_DEFAULT = 86_400;
export const ROTATION_OVERLAP_SECONDS_MAX = 30 * 86_400;

// Printable ASCII only: the secret is typed on a command line and pasted into partner config.
const SECRET_CHARACTERS = /^[\x21-\x7e]+$/;

export function isValidSigningSecret(secret: string): boolean {
  return (
    secret.length >= SIGNING_SECRET_LENGTH_MIN &&
    secret.length <= SIGNING_SECRET_LENGTH_MAX &&
    SECRET_CHARACTERS.test(secret)
  );
}

/** 0 means the default; otherwise 1..ROTATION_OVERLAP_SECONDS_MAX. */
export function rotationOverlapSeconds(requested: number): number {
  if (requested === 0) return ROTATION_OVERLAP_SECONDS_DEFAULT;
  if (!Number.isInteger(requested) || requested < 0 || requested > ROTATION_OVERLAP_SECONDS_MAX)
    throw validationFailed(['rotationOverlapSeconds']);
  return requested;
}

export interface StoredSecrets<S> {
  current: S;
  previous: S | null;
  previousExpiresAt: Date | null;
}

/**
 * The secrets after setting `next`. `sameAsCurrent` says whether `next` equals
 * the current secret (compared by the caller in constant time).
 */
export function rotateSecrets<S>(
  existing: StoredSecrets<S> | null,
  next: S,
  sameAsCurrent: boolean,
  overlapSeconds: number,
  nowMs: number,
): StoredSecrets<S> {
  if (existing === null) return { current: next, previous: null, previousExpiresAt: null };
  if (sameAsCurrent) return existing;
  return { current: next, previous: existing.current, previousExpiresAt: new Date(nowMs + overlapSeconds * 1000) };
}

/** The secrets that sign now: the current one, and the previous one while its overlap lasts. */
export function signingSecrets<S>(stored: StoredSecrets<S>, nowMs: number): S[] {
  const previousActive =
    stored.previous !== null && stored.previousExpiresAt !== null && stored.previousExpiresAt.getTime() > nowMs;
  return previousActive && stored.previous !== null ? [stored.current, stored.previous] : [stored.current];
}
