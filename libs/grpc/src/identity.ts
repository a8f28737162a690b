/**
 * Service identity. Every process that speaks gRPC holds one certificate from
 * the platform's CA, and that certificate names exactly one identity as a URI
 * subject alternative name, `spiffe://platform/<name>`: one per service and one
 * for the operator tool. The name is what the per-method allow-lists list, what
 * a refusal logs, and what an audit record names as the caller.
 */
import type { PeerCertificate } from 'node:tls';

export const IDENTITY_URI_PREFIX = 'spiffe://platform/';

/** Every identity the platform issues. The operator tool is `ops`. */
export const PLATFORM_IDENTITIES = [
  'gateway',
  'trading',
  'ledger',
  'wallet-registry',
  'payouts',
  'collections',
  'notifier',
  'webhook-delivery',
  'ops',
] as const;

export type PlatformIdentity = (typeof PLATFORM_IDENTITIES)[number];

const IDENTITY_NAME = /^[a-z][a-z0-9-]{0,62}$/;

export function isPlatformIdentity(name: string): name is PlatformIdentity {
  return (PLATFORM_IDENTITIES as readonly string[]).includes(name);
}

export function identityUri(name: string): string {
  if (!IDENTITY_NAME.test(name)) throw new RangeError(`not an identity name: ${JSON.stringify(name)}`);
  return `${IDENTITY_URI_PREFIX}${name}`;
}

/**
 * The identity named by a certificate's subject alternative names (Node's
 * `subjectaltname` text, e.g. `URI:spiffe://platform/ledger, DNS:ledger`).
 * Null unless exactly one URI carries the platform prefix and a well-formed
 * name: a certificate naming two identities names none.
 */
export function identityFromSubjectAltName(subjectAltName: string | undefined): string | null {
  if (!subjectAltName) return null;
  const names = subjectAltName
    .split(', ')
    .filter((entry) => entry.startsWith(`URI:${IDENTITY_URI_PREFIX}`))
    .map((entry) => entry.slice(`URI:${IDENTITY_URI_PREFIX}`.length));
  if (names.length !== 1 || !IDENTITY_NAME.test(names[0])) return null;
  return names[0];
}

/** The identity of a TLS peer, or null when it presented no certificate or one naming no identity. */
export function identityOfPeer(certificate: PeerCertificate | null | undefined): string | null {
  if (!certificate || typeof certificate !== 'object') return null;
  return identityFromSubjectAltName(certificate.subjectaltname);
}
