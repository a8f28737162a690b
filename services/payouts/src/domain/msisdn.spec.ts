// Proves which Kenyan phone formats the mobile-money prompt accepts and that each normalises to 254XXXXXXXXX.
import { maskMsisdn, normaliseKenyanMsisdn } from './msisdn';

describe('normaliseKenyanMsisdn', () => {
  it.each([
    ['0712345678', '254712345678'],
    ['0112345678', '254112345678'],
    ['254712345678', '254712345678'],
    ['254112345678', '254112345678'],
    ['+254712345678', '254712345678'],
    ['+254112345678', '254112345678'],
  ])('accepts %s as %s', (value, expected) => {
    expect(normaliseKenyanMsisdn(value)).toBe(expected);
  });

  it.each([
    '',
    '712345678',
    '071234567',
    '07123456789',
    '0812345678',
    '0212345678',
    '2547123456789',
    '25471234567',
    '+2540712345678',
    '254812345678',
    '00254712345678',
    '+ 254712345678',
    '0712 345 678',
    '0712-345-678',
    '07123456７8',
    '+0712345678',
  ])('refuses %j', (value) => {
    expect(normaliseKenyanMsisdn(value)).toBeNull();
  });

  it('masks all but the last three digits', () => {
    expect(maskMsisdn('254712345678')).toBe('*********678');
  });
});
