// Proves that secrets, codes and account numbers never survive redaction, at any depth,
// and that a field name's verdict, remembered after its first use, is the same on every
// later use, also once more names were seen than are remembered.
import { maskEmail, redact, redactField } from './redact';

describe('redact', () => {
  it('removes secrets, signatures and codes and masks account numbers', () => {
    const out = redact({
      signingSecret: 's3cr3t',
      headers: { 'x-service-signature': 'v1=abc', authorization: 'Bearer x' },
      otp: '123456',
      code: '654321',
      destination: { accountNumber: '0712345678', accountName: 'Jane' },
      amount: '10.00',
    });
    const text = JSON.stringify(out);
    for (const leaked of ['s3cr3t', 'v1=abc', 'Bearer x', '123456', '654321', '0712345678']) {
      expect(text).not.toContain(leaked);
    }
    expect(text).toContain('****5678');
    expect(text).toContain('Jane');
    expect(text).toContain('10.00');
  });

  it('handles arrays and bounds depth', () => {
    let deep: Record<string, unknown> = { secret: 'x' };
    for (let i = 0; i < 10; i += 1) deep = { next: deep };
    expect(JSON.stringify(redact([deep]))).not.toContain('"x"');
  });

  it('judges a field name the same on every use', () => {
    for (let use = 0; use < 3; use += 1) {
      expect(redactField('signingSecret', 's3cr3t')).toBe('[REDACTED]');
      expect(redactField('accountNumber', 12345678)).toBe(12345678);
      expect(redactField('accountNumber', '0712345678')).toBe('****5678');
      expect(redactField('amount', '10.00')).toBe('10.00');
    }
  });

  it('still redacts by name once more names were seen than it remembers', () => {
    for (let index = 0; index < 5_000; index += 1) redactField(`field${index}`, index);
    expect(redactField('webhookSecretNew', 'x')).toBe('[REDACTED]');
    expect(redactField('msisdn', '254700111222')).toBe('****1222');
    expect(redactField('plainAfterTheBound', 'kept')).toBe('kept');
  });
});

describe('maskEmail', () => {
  it.each([
    ['jane.doe@example.com', 'j***@example.com'],
    ['j@example.com', 'j***@example.com'],
    ['@example.com', '***'],
    ['jane@', '***'],
    ['nothing', '***'],
  ])('masks %p as %p', (address, masked) => {
    expect(maskEmail(address)).toBe(masked);
  });
});
