// Proves the administrator e-mail rule: strict dot-atom syntax, ASCII only,
// length limits, and a domain equal to the partner's (case-insensitive on the
// domain only), with lookalike domains refused.
import { parseAdminEmail, parseAdminName } from './admin-email';

const DOMAIN = 'example.com';

describe('parseAdminEmail', () => {
  it.each([
    ['jane@example.com', 'jane@example.com'],
    ['Jane.Doe@EXAMPLE.com', 'Jane.Doe@example.com'],
    ['j+wallets@example.com', 'j+wallets@example.com'],
    ["o'brien@example.com", "o'brien@example.com"],
    ['a_b-c@Example.Com', 'a_b-c@example.com'],
    [`${'a'.repeat(64)}@example.com`, `${'a'.repeat(64)}@example.com`],
  ])('accepts %p as %p', (email, stored) => {
    expect(parseAdminEmail(email, DOMAIN)).toBe(stored);
  });

  it.each([
    'jane@sub.example.com',
    'jane@examp1e.com',
    'jane@example.com.evil.io',
    'jane@evil-example.com',
    'jane@example.co',
    'jane@example.com.',
    'jane@exаmple.com', // Cyrillic а
    'jane@xn--exmple-cua.com',
    'jané@example.com',
    '"a@b"@example.com',
    '"jane"@example.com',
    'jane@@example.com',
    'a@b@example.com',
    '@example.com',
    'jane@',
    'jane',
    '.jane@example.com',
    'jane.@example.com',
    'ja..ne@example.com',
    'ja ne@example.com',
    ' jane@example.com',
    'jane@example.com ',
    'jane(comment)@example.com',
    'jane@[127.0.0.1]',
    'jane\n@example.com',
    `${'a'.repeat(65)}@example.com`,
    '',
  ])('refuses %p', (email) => {
    expect(parseAdminEmail(email, DOMAIN)).toBeNull();
  });

  it('refuses anything over 254 characters and non-strings', () => {
    const long = `${'a'.repeat(250)}@example.com`;
    expect(long.length).toBeGreaterThan(254);
    expect(parseAdminEmail(long, DOMAIN)).toBeNull();
    expect(parseAdminEmail(42, DOMAIN)).toBeNull();
  });
});

describe('parseAdminName', () => {
  it('trims and accepts ordinary names, unicode included', () => {
    expect(parseAdminName('  Jane Wanjiru  ')).toBe('Jane Wanjiru');
    expect(parseAdminName('Zoë Ñúñez')).toBe('Zoë Ñúñez');
  });

  it.each(['', '   ', 'a\nb', 'x'.repeat(201), 'tab\there'])('refuses %p', (name) => {
    expect(parseAdminName(name)).toBeNull();
  });
});
