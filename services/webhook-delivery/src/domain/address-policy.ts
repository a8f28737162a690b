/**
 * Which IP addresses a webhook may be sent to.
 * Production sends only to public unicast addresses; sandbox mode also allows
 * loopback so tests and local stacks can run a receiver on the same machine.
 * Everything else (private, shared, link-local including the cloud metadata
 * address, unspecified, multicast, broadcast, documentation and other reserved
 * ranges) is refused, so an endpoint URL can never reach inside our network.
 *
 * IPv6 addresses that carry an IPv4 address (v4-mapped ::ffff:a.b.c.d, NAT64
 * 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4 address they carry.
 * Anything we cannot parse is refused.
 */
import type { PlatformMode } from './platform-mode';

export type AddressClass =
  'public' | 'private' | 'loopback' | 'link_local' | 'unspecified' | 'multicast' | 'broadcast' | 'reserved' | 'invalid';

/** True when a webhook may connect to an address of this class in this mode. */
export function isAddressClassAllowed(addressClass: AddressClass, mode: PlatformMode): boolean {
  if (addressClass === 'public') return true;
  return addressClass === 'loopback' && mode === 'sandbox';
}

export function isAddressAllowed(address: string, mode: PlatformMode): boolean {
  return isAddressClassAllowed(classifyAddress(address), mode);
}

export function classifyAddress(address: string): AddressClass {
  const ipv4 = parseIpv4(address);
  if (ipv4 !== null) return classifyIpv4(ipv4);
  const ipv6 = parseIpv6(address);
  if (ipv6 !== null) return classifyIpv6(ipv6);
  return 'invalid';
}

// ---------------------------------------------------------------- IPv4

const IPV4_OCTET = /^(0|[1-9][0-9]{0,2})$/;

interface Ipv4Range {
  base: number;
  prefixBits: number;
  addressClass: AddressClass;
}

const ipv4Range = (dotted: string, prefixBits: number, addressClass: AddressClass): Ipv4Range => {
  const base = parseIpv4(dotted);
  if (base === null) throw new Error(`bad range ${dotted}`);
  return { base, prefixBits, addressClass };
};

// Checked in order; the first match wins. Everything unmatched is public.
const IPV4_RANGES: readonly Ipv4Range[] = [
  ipv4Range('255.255.255.255', 32, 'broadcast'),
  ipv4Range('0.0.0.0', 8, 'unspecified'),
  ipv4Range('10.0.0.0', 8, 'private'),
  ipv4Range('100.64.0.0', 10, 'private'), // carrier-grade NAT (shared address space)
  ipv4Range('127.0.0.0', 8, 'loopback'),
  ipv4Range('169.254.0.0', 16, 'link_local'), // includes the metadata address 169.254.169.254
  ipv4Range('172.16.0.0', 12, 'private'),
  ipv4Range('192.0.0.0', 24, 'reserved'), // IETF protocol assignments
  ipv4Range('192.0.2.0', 24, 'reserved'), // documentation (TEST-NET-1)
  ipv4Range('192.88.99.0', 24, 'reserved'), // deprecated 6to4 relay anycast
  ipv4Range('192.168.0.0', 16, 'private'),
  ipv4Range('198.18.0.0', 15, 'reserved'), // benchmarking
  ipv4Range('198.51.100.0', 24, 'reserved'), // documentation (TEST-NET-2)
  ipv4Range('203.0.113.0', 24, 'reserved'), // documentation (TEST-NET-3)
  ipv4Range('224.0.0.0', 4, 'multicast'),
  ipv4Range('240.0.0.0', 4, 'reserved'),
];

function classifyIpv4(value: number): AddressClass {
  for (const range of IPV4_RANGES) {
    const mask = range.prefixBits === 0 ? 0 : (0xffffffff << (32 - range.prefixBits)) >>> 0;
    if ((value & mask) >>> 0 === range.base) return range.addressClass;
  }
  return 'public';
}

/** Strict dotted quad (no leading zeros, no short forms) as an unsigned 32-bit number. */
export function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!IPV4_OCTET.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

// ---------------------------------------------------------------- IPv6

const HEXTETS = 8;
const HEXTET = /^[0-9a-fA-F]{1,4}$/;

/** Eight 16-bit groups, or null. Accepts `::` compression, a dotted IPv4 tail and a zone id. */
export function parseIpv6(text: string): number[] | null {
  const withoutZone = text.split('%')[0] ?? '';
  const halves = withoutZone.split('::');
  if (halves.length > 2) return null;
  const head = parseHextetList(halves[0] ?? '');
  const tail = halves.length === 2 ? parseHextetList(halves[1] ?? '') : [];
  if (head === null || tail === null) return null;
  if (halves.length === 1) return head.length === HEXTETS ? head : null;
  const missing = HEXTETS - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function parseHextetList(text: string): number[] | null {
  if (text === '') return [];
  const groups = text.split(':');
  const result: number[] = [];
  for (const [index, group] of groups.entries()) {
    const isLast = index === groups.length - 1;
    if (isLast && group.includes('.')) {
      const ipv4 = parseIpv4(group);
      if (ipv4 === null) return null;
      result.push(Math.floor(ipv4 / 0x10000), ipv4 % 0x10000);
    } else if (HEXTET.test(group)) {
      result.push(parseInt(group, 16));
    } else {
      return null;
    }
  }
  return result;
}

const ipv4From = (high: number, low: number): number => high * 0x10000 + low;
const allZero = (groups: number[]) => groups.every((group) => group === 0);

function classifyIpv6(h: number[]): AddressClass {
  const [h0 = 0, h1 = 0, h2 = 0, , , h5 = 0, h6 = 0, h7 = 0] = h;
  if (allZero(h)) return 'unspecified';
  if (allZero(h.slice(0, 7)) && h7 === 1) return 'loopback';
  if (allZero(h.slice(0, 5)) && h5 === 0xffff) return classifyIpv4(ipv4From(h6, h7)); // v4-mapped
  if (allZero(h.slice(0, 6))) return 'reserved'; // deprecated v4-compatible ::a.b.c.d
  if (h0 === 0x0064 && h1 === 0xff9b && allZero(h.slice(2, 6))) return classifyIpv4(ipv4From(h6, h7)); // NAT64
  if (h0 === 0x2002) return classifyIpv4(ipv4From(h1, h2)); // 6to4
  if ((h0 & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((h0 & 0xffc0) === 0xfe80) return 'link_local'; // fe80::/10
  if ((h0 & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local fec0::/10
  if ((h0 & 0xff00) === 0xff00) return 'multicast';
  if (h0 === 0x2001 && (h1 & 0xfe00) === 0) return 'reserved'; // 2001::/23 IETF protocol assignments, incl. Teredo
  if (h0 === 0x2001 && h1 === 0x0db8) return 'reserved'; // documentation
  if ((h0 & 0xe000) === 0x2000) return 'public'; // global unicast 2000::/3
  return 'reserved';
}
