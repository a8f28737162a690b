// Proves the flag validators accept exactly what the services accept (money
// at the currency's scale and never as a float, UUIDs, domains, bounded
// integers, known scopes, https URLs) and that one VALIDATION_FAILED names
// every bad flag, without ever echoing a secret.
import { CliError } from './cli-error';
import { FlagReader, FlagValues } from './flags';

function refusal(read: (flags: FlagReader) => unknown, values: FlagValues): string {
  const flags = new FlagReader(values);
  read(flags);
  try {
    flags.done();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe('VALIDATION_FAILED');
    return (error as CliError).message;
  }
  return '';
}

function accepted<T>(read: (flags: FlagReader) => T, values: FlagValues): T {
  const flags = new FlagReader(values);
  const value = read(flags);
  flags.done();
  return value;
}

describe('FlagReader.kesAmount', () => {
  const read = (positive: boolean) => (flags: FlagReader) => flags.kesAmount('cap', { positive, fallback: '5.00' });

  it.each([
    ['1000', '1000.00'],
    ['1000.5', '1000.50'],
    ['0.01', '0.01'],
    ['999999999999999.99', '999999999999999.99'],
  ])('formats %p as %p', (raw, formatted) => expect(accepted(read(true), { cap: raw })).toBe(formatted));

  it('uses the default when the flag is absent', () => {
    expect(accepted(read(true), {})).toBe('5.00');
  });

  it.each(['1.001', '-1', '1e3', '01', '1,000', ' 1', '', '0x10', 'NaN', '1.'])('refuses %p', (raw) => {
    expect(refusal(read(true), { cap: raw })).toContain('--cap');
  });

  it('refuses zero only when the amount must be positive', () => {
    expect(refusal(read(true), { cap: '0' })).toContain('--cap');
    expect(accepted(read(false), { cap: '0' })).toBe('0.00');
  });
});

describe('FlagReader.integer', () => {
  const read = (flags: FlagReader) => flags.integer('fee-bps', { min: 0, max: 10_000 }, 50);

  it('accepts the bounds and uses the default when absent', () => {
    expect(accepted(read, { 'fee-bps': '0' })).toBe(0);
    expect(accepted(read, { 'fee-bps': '10000' })).toBe(10_000);
    expect(accepted(read, {})).toBe(50);
  });

  it.each(['10001', '-1', '1.5', '1e2', 'ten', '', '9999999999'])('refuses %p', (raw) => {
    expect(refusal(read, { 'fee-bps': raw })).toBe('Validation failed on: --fee-bps (an integer from 0 to 10000)');
  });
});

describe('FlagReader identifiers and text', () => {
  it('lower-cases a UUID and refuses anything else', () => {
    expect(accepted((f) => f.uuid('partner', true), { partner: '6F1C1A52-6D0E-4F51-9B6C-2F0D2B8A1E11' })).toBe(
      '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
    );
    expect(refusal((f) => f.uuid('partner', true), { partner: 'partner-1' })).toContain('--partner (expected a UUID)');
    expect(refusal((f) => f.uuid('partner', true), {})).toContain('--partner (required)');
    expect(accepted((f) => f.uuid('partner', false), {})).toBeUndefined();
  });

  it('normalises a domain and refuses lookalikes', () => {
    expect(accepted((f) => f.domain('admin-domain'), { 'admin-domain': ' Example.COM ' })).toBe('example.com');
    for (const bad of ['example', 'example.com.', 'éxample.com', 'a@example.com', 'example..com']) {
      expect(refusal((f) => f.domain('admin-domain'), { 'admin-domain': bad })).toContain('--admin-domain');
    }
  });

  it('bounds text length after trimming', () => {
    expect(accepted((f) => f.text('name', 5), { name: ' Acme ' })).toBe('Acme');
    expect(refusal((f) => f.text('name', 5), { name: '   ' })).toContain('--name (1 to 5 characters)');
    expect(refusal((f) => f.text('name', 5), { name: 'Acme Ltd' })).toContain('--name');
  });

  it('reads a choice or falls back to the default', () => {
    const read = (f: FlagReader) => f.choice('buy-mode', ['debit_first', 'pay_in'] as const, 'debit_first');
    expect(accepted(read, { 'buy-mode': 'pay_in' })).toBe('pay_in');
    expect(accepted(read, {})).toBe('debit_first');
    expect(refusal(read, { 'buy-mode': 'PAY_IN' })).toContain('--buy-mode (one of debit_first, pay_in)');
  });
});

describe('FlagReader.list', () => {
  const read = (f: FlagReader) => f.list('scopes', ['read', 'trade', 'payouts'] as const);

  it('keeps known items once, in order', () => {
    expect(accepted(read, { scopes: 'trade, read,trade' })).toEqual(['trade', 'read']);
    expect(accepted(read, {})).toEqual([]);
  });

  it.each(['', 'read,,trade', 'read,admin', 'READ'])('refuses %p', (raw) => {
    expect(refusal(read, { scopes: raw })).toContain('--scopes');
  });
});

describe('FlagReader.httpsUrl and secret', () => {
  it('accepts https URLs only', () => {
    expect(accepted((f) => f.httpsUrl('url', 100), { url: 'https://hooks.example.com/p' })).toBe(
      'https://hooks.example.com/p',
    );
    for (const bad of ['http://hooks.example.com', 'hooks.example.com', 'https://user:pw@example.com/', 'ftp://x']) {
      expect(refusal((f) => f.httpsUrl('url', 100), { url: bad })).toContain('--url');
    }
  });

  it('never echoes a refused secret', () => {
    const message = refusal((f) => f.secret('secret', 16, 256), { secret: 'short-secret' });
    expect(message).toBe('Validation failed on: --secret (16 to 256 characters)');
    expect(message).not.toContain('short-secret');
  });

  it('keeps a secret exactly as given', () => {
    expect(accepted((f) => f.secret('secret', 16, 256), { secret: ' 0123456789abcdef ' })).toBe(' 0123456789abcdef ');
  });
});

it('names every bad flag in one refusal, in the order read', () => {
  const message = refusal(
    (flags) => {
      flags.text('name', 10);
      flags.integer('fee-bps', { min: 0, max: 10 }, 0);
      flags.kesAmount('cap', { positive: true, fallback: '1.00' });
    },
    { 'fee-bps': '11', cap: '0' },
  );
  expect(message).toBe(
    'Validation failed on: --name (required), --fee-bps (an integer from 0 to 10), --cap (a KES amount like 1000.00 above zero)',
  );
});
