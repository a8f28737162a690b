// Proves that secrets, codes and account numbers never survive redaction, at any depth.
import { maskEmail, redact } from './redact';

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
