// Proves the SSRF address rules: only public unicast addresses are allowed in
// production, loopback too in sandbox mode, and IPv6 forms that carry an IPv4
// address (v4-mapped, NAT64, 6to4) are judged by that IPv4 address.
import { classifyAddress, isAddressAllowed, parseIpv6 } from './address-policy';

describe('classifyAddress (IPv4)', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['169.254.0.1', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['203.0.113.5', 'reserved'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each(['127.1', '0x7f.0.0.1', '0177.0.0.1', '256.0.0.1', '1.2.3', '1.2.3.4.5', '', 'localhost', '1.2.3.-4'])(
    'refuses the non-canonical form %p as invalid',
    (address) => {
      expect(classifyAddress(address)).toBe('invalid');
    },
  );
});

describe('classifyAddress (IPv6)', () => {
  it.each([
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'], // Teredo
    ['100::1', 'reserved'],
    ['::127.0.0.1', 'reserved'], // deprecated v4-compatible
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:169.254.169.254', 'link_local'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['0:0:0:0:0:ffff:192.168.0.1', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
    ['2002:0808:0808::1', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each(['1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '12345::1', '1:2:3:4:5:6:7', ':::1', '::ffff:127.0.0.256', '[::1]'])(
    'refuses the malformed %p as invalid',
    (address) => {
      expect(classifyAddress(address)).toBe('invalid');
    },
  );

  it('expands :: to the right number of zero groups', () => {
    expect(parseIpv6('1::8')).toEqual([1, 0, 0, 0, 0, 0, 0, 8]);
    expect(parseIpv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIpv6('1:2:3:4:5:6:7::')).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
  });
});

describe('isAddressAllowed', () => {
  it('allows only public addresses in production', () => {
    expect(isAddressAllowed('8.8.8.8', 'production')).toBe(true);
    for (const address of [
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      'fe80::1',
      '0.0.0.0',
      'nonsense',
    ]) {
      expect(isAddressAllowed(address, 'production')).toBe(false);
    }
  });

  it('also allows loopback, and only loopback, in sandbox mode', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '8.8.8.8'])
      expect(isAddressAllowed(address, 'sandbox')).toBe(true);
    for (const address of ['10.0.0.1', '192.168.1.1', '169.254.169.254', 'fd00::1', '0.0.0.0', '::']) {
      expect(isAddressAllowed(address, 'sandbox')).toBe(false);
    }
  });
});
