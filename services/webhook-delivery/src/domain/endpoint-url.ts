/**
 * What a partner's webhook URL may be. Checked when an operator sets it and
 * again before every attempt (the mode, or these rules, may have changed since).
 * The check here is on the URL alone; the addresses its host resolves to are
 * checked at every attempt by the sender (address-policy.ts).
 */
import { isIP } from 'node:net';
import { classifyAddress, isAddressClassAllowed } from './address-policy';
import type { PlatformMode } from './platform-mode';

export const ENDPOINT_URL_LENGTH_MAX = 2048;
const HTTPS_DEFAULT_PORT = 443;

export interface EndpointTarget {
  /** Normalised href, as stored. */
  href: string;
  /** Host without IPv6 brackets: what we resolve, send as SNI and as Host. */
  hostname: string;
  port: number;
  /** Path and query exactly as sent on the request line. */
  path: string;
  /** The host when it is an IP literal (nothing to resolve). */
  literalAddress: string | null;
}

export type EndpointUrlProblem =
  'malformed' | 'not_https' | 'credentials' | 'fragment' | 'too_long' | 'address_refused';

export type EndpointUrlCheck = { ok: true; target: EndpointTarget } | { ok: false; problem: EndpointUrlProblem };

export function checkEndpointUrl(raw: string, mode: PlatformMode): EndpointUrlCheck {
  if (raw.length > ENDPOINT_URL_LENGTH_MAX) return { ok: false, problem: 'too_long' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'malformed' };
  }
  if (url.protocol !== 'https:') return { ok: false, problem: 'not_https' };
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'credentials' };
  if (url.hash !== '') return { ok: false, problem: 'fragment' };
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (hostname === '') return { ok: false, problem: 'malformed' };
  const literalAddress = isIP(hostname) === 0 ? null : hostname;
  if (!isHostAllowed(hostname, literalAddress, mode)) return { ok: false, problem: 'address_refused' };
  return {
    ok: true,
    target: {
      href: url.href,
      hostname,
      port: url.port === '' ? HTTPS_DEFAULT_PORT : Number(url.port),
      path: `${url.pathname}${url.search}`,
      literalAddress,
    },
  };
}

// `localhost` names are loopback by definition (RFC 6761), whatever DNS says.
function isLocalhostName(hostname: string): boolean {
  const lower = hostname.toLowerCase().replace(/\.$/, '');
  return lower === 'localhost' || lower.endsWith('.localhost');
}

function isHostAllowed(hostname: string, literalAddress: string | null, mode: PlatformMode): boolean {
  if (literalAddress !== null) return isAddressClassAllowed(classifyAddress(literalAddress), mode);
  if (isLocalhostName(hostname)) return isAddressClassAllowed('loopback', mode);
  return true;
}
