// Proves which endpoint URLs an operator may register: HTTPS only, no
// credentials or fragment, and no IP literal or localhost name that the mode
// refuses (loopback only in sandbox mode).
import { checkEndpointUrl } from './endpoint-url';

describe('checkEndpointUrl', () => {
  it('accepts a public https URL and splits it for the request', () => {
    const check = checkEndpointUrl('https://hooks.example.com/partner/events?x=1', 'production');
    expect(check).toEqual({
      ok: true,
      target: {
        href: 'https://hooks.example.com/partner/events?x=1',
        hostname: 'hooks.example.com',
        port: 443,
        path: '/partner/events?x=1',
        literalAddress: null,
      },
    });
  });

  it('keeps an explicit port and normalises the host', () => {
    const check = checkEndpointUrl('https://HOOKS.Example.com:8443', 'production');
    expect(check.ok && check.target).toMatchObject({ href: 'https://hooks.example.com:8443/', port: 8443, path: '/' });
  });

  it.each([
    ['http://hooks.example.com/', 'not_https'],
    ['ftp://hooks.example.com/', 'not_https'],
    ['https://user:pass@hooks.example.com/', 'credentials'],
    ['https://hooks.example.com/#frag', 'fragment'],
    ['not a url', 'malformed'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'too_long'],
  ])('refuses %s (%s)', (url, problem) => {
    expect(checkEndpointUrl(url, 'sandbox')).toEqual({ ok: false, problem });
  });

  it.each([
    'https://127.0.0.1/',
    'https://localhost:8443/hooks',
    'https://api.localhost/',
    'https://[::1]:8443/',
    'https://[::ffff:127.0.0.1]/',
    'https://0x7f.1/', // the URL parser normalises this to 127.0.0.1
    'https://10.0.0.8/',
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00::1]/',
    'https://0.0.0.0/',
  ])('refuses %s in production', (url) => {
    expect(checkEndpointUrl(url, 'production')).toEqual({ ok: false, problem: 'address_refused' });
  });

  it('allows loopback in sandbox mode, and nothing else private', () => {
    const local = checkEndpointUrl('https://localhost:8443/hooks', 'sandbox');
    expect(local.ok && local.target.hostname).toBe('localhost');
    const ipv6 = checkEndpointUrl('https://[::1]:8443/', 'sandbox');
    expect(ipv6.ok && ipv6.target).toMatchObject({ hostname: '::1', literalAddress: '::1' });
    expect(checkEndpointUrl('https://10.0.0.8/', 'sandbox')).toEqual({ ok: false, problem: 'address_refused' });
    expect(checkEndpointUrl('https://169.254.169.254/', 'sandbox')).toEqual({ ok: false, problem: 'address_refused' });
  });

  it('accepts a public IP literal', () => {
    const check = checkEndpointUrl('https://8.8.8.8/hook', 'production');
    expect(check.ok && check.target.literalAddress).toBe('8.8.8.8');
  });
});
